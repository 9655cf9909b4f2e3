package io.trellara.sink.postgres;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;
import java.util.function.UnaryOperator;

/**
 * Crafts the barrier of a transaction as a source would publish it (strict chunked, or partitioned
 * over lanes), and lets a test break it in one precise way. Every message is encoded with its
 * checksum; the manifest lists each chunk's checksum and the marker binds the manifest's. Also used
 * by the ITs (public).
 */
public final class Barriers {

  /** One chunk to build: where it goes and its events (in total order). */
  public record ChunkSpec(
      int partitionId, int chunkSequence, List<ChangeRecord> changes, List<DdlEvent> ddl) {}

  /**
   * One encoded message and where a source would publish it: the strict topic (lane -1) or a lane.
   */
  public record Published(MessageKind kind, byte[] bytes, int lane, String key) {
    public boolean onStrictTopic() {
      return lane < 0;
    }
  }

  private final TransactionEnvelope source;
  private final ManifestBoundaryMode mode;
  private final int partitionCount;
  private final List<PartitionChunk> chunks;
  private final List<byte[]> chunkBytes;
  private final TransactionManifest manifest;
  private final byte[] manifestBytes;
  private final TransactionCommitMarker marker;
  private final byte[] markerBytes;

  private Barriers(
      TransactionEnvelope source,
      ManifestBoundaryMode mode,
      int partitionCount,
      List<PartitionChunk> chunks,
      List<byte[]> chunkBytes,
      TransactionManifest manifest,
      byte[] manifestBytes,
      TransactionCommitMarker marker,
      byte[] markerBytes) {
    this.source = source;
    this.mode = mode;
    this.partitionCount = partitionCount;
    this.chunks = chunks;
    this.chunkBytes = chunkBytes;
    this.manifest = manifest;
    this.manifestBytes = manifestBytes;
    this.marker = marker;
    this.markerBytes = markerBytes;
  }

  // ---- building
  // ---------------------------------------------------------------------------------------

  /**
   * Strict chunked order: consecutive slices of at most {@code max} events, partition_id = chunk
   * index.
   */
  public static Barriers strictChunked(TransactionEnvelope e, int max) {
    List<Object> events = events(e);
    List<ChunkSpec> specs = new ArrayList<>();
    for (int from = 0, index = 0; from < events.size(); from += max, index++) {
      specs.add(spec(index, 0, events.subList(from, Math.min(events.size(), from + max))));
    }
    return of(e, ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER, 0, specs);
  }

  /**
   * Partitioned over {@code lanes} lanes: each event goes to {@code laneOf(event)} (a ChangeRecord
   * or a DdlEvent); a lane's events are cut into chunks of at most {@code max} events
   * (chunk_sequence 0, 1, ...).
   */
  public static Barriers partitioned(
      TransactionEnvelope e, int lanes, int max, ToIntFunction<Object> laneOf) {
    List<List<Object>> perLane = new ArrayList<>();
    for (int i = 0; i < lanes; i++) {
      perLane.add(new ArrayList<>());
    }
    for (Object event : events(e)) {
      perLane.get(laneOf.applyAsInt(event)).add(event);
    }
    List<ChunkSpec> specs = new ArrayList<>();
    for (int lane = 0; lane < lanes; lane++) {
      List<Object> l = perLane.get(lane);
      long partitionOrder = 0;
      List<Object> numbered = new ArrayList<>(l.size());
      for (Object event : l) {
        numbered.add(
            event instanceof ChangeRecord c
                ? c.toBuilder().setPartitionOrder(++partitionOrder).build()
                : event);
      }
      for (int from = 0, seq = 0; from < numbered.size(); from += max, seq++) {
        specs.add(spec(lane, seq, numbered.subList(from, Math.min(numbered.size(), from + max))));
      }
    }
    return of(e, ManifestBoundaryMode.PARTITIONED_SCALE_MODE, lanes, specs);
  }

  /** Any chunk layout: header and schema versions from {@code e}, events as given (not checked). */
  public static Barriers of(
      TransactionEnvelope e, ManifestBoundaryMode mode, int partitionCount, List<ChunkSpec> specs) {
    List<PartitionChunk> chunks = new ArrayList<>();
    for (ChunkSpec s : specs) {
      chunks.add(
          TrellaraCodec.withChecksum(
              PartitionChunk.newBuilder()
                  .setProtocolVersion(e.getProtocolVersion())
                  .setSourceId(e.getSourceId())
                  .setDatabaseId(e.getDatabaseId())
                  .setDatasetId(e.getDatasetId())
                  .setTransactionId(e.getTransactionId())
                  .setCommitLsn(e.getCommitLsn())
                  .setBeginLsn(e.getBeginLsn())
                  .setCommitTimestampMs(e.getCommitTimestampMs())
                  .setBoundaryMode(mode)
                  .setPartitionId(s.partitionId())
                  .setChunkSequence(s.chunkSequence())
                  .addAllSchemaVersions(e.getSchemaVersionsList())
                  .addAllChanges(s.changes())
                  .addAllDdlEvents(s.ddl())
                  .build()));
    }
    return assemble(e, mode, partitionCount, chunks, UnaryOperator.identity());
  }

  private static Barriers assemble(
      TransactionEnvelope e,
      ManifestBoundaryMode mode,
      int partitionCount,
      List<PartitionChunk> chunks,
      UnaryOperator<TransactionManifest.Builder> tamper) {
    List<byte[]> bytes = new ArrayList<>();
    TransactionManifest.Builder m =
        TransactionManifest.newBuilder()
            .setProtocolVersion(e.getProtocolVersion())
            .setSourceId(e.getSourceId())
            .setDatabaseId(e.getDatabaseId())
            .setDatasetId(e.getDatasetId())
            .setTransactionId(e.getTransactionId())
            .setSourceCommitLsn(e.getCommitLsn())
            .setSourceCommitTimestampMs(e.getCommitTimestampMs())
            .setBoundaryMode(mode)
            .setPartitionCount(partitionCount)
            .setDdlEventCount(e.getDdlEventsCount());
    long global = 0;
    for (PartitionChunk c : chunks) {
      byte[] b = TrellaraCodec.encodeWithoutValidation(c).bytes();
      bytes.add(b);
      long first = Long.MAX_VALUE;
      long last = 0;
      for (ChangeRecord r : c.getChangesList()) {
        first = Math.min(first, r.getTotalOrder());
        last = Math.max(last, r.getTotalOrder());
      }
      for (DdlEvent d : c.getDdlEventsList()) {
        first = Math.min(first, d.getTotalOrder());
        last = Math.max(last, d.getTotalOrder());
      }
      long count = (long) c.getChangesCount() + c.getDdlEventsCount();
      global += count;
      m.addPartitions(
          ManifestPartition.newBuilder()
              .setId(c.getPartitionId())
              .setChunkSequence(c.getChunkSequence())
              .setEventCount(count)
              .setFirstTotalOrder(first)
              .setLastTotalOrder(last)
              .setChecksum(c.getChecksum()));
    }
    m.setGlobalEventCount(global);
    TransactionManifest manifest =
        TrellaraCodec.withChecksum(tamper.apply(m).clearChecksum().build());
    TransactionCommitMarker marker = TrellaraCodec.withChecksum(markerFor(manifest));
    return new Barriers(
        e,
        mode,
        partitionCount,
        chunks,
        bytes,
        manifest,
        TrellaraCodec.encodeWithoutValidation(manifest).bytes(),
        marker,
        TrellaraCodec.encodeWithoutValidation(marker).bytes());
  }

  private static TransactionCommitMarker markerFor(TransactionManifest m) {
    return TransactionCommitMarker.newBuilder()
        .setProtocolVersion(m.getProtocolVersion())
        .setSourceId(m.getSourceId())
        .setDatabaseId(m.getDatabaseId())
        .setDatasetId(m.getDatasetId())
        .setTransactionId(m.getTransactionId())
        .setSourceCommitLsn(m.getSourceCommitLsn())
        .setSourceCommitTimestampMs(m.getSourceCommitTimestampMs())
        .setGlobalEventCount(m.getGlobalEventCount())
        .setParticipatingPartitionCount(BarrierVerifier.participatingPartitions(m))
        .setManifestChecksum(m.getChecksum())
        .build();
  }

  private static ChunkSpec spec(int partitionId, int seq, List<Object> events) {
    List<ChangeRecord> changes = new ArrayList<>();
    List<DdlEvent> ddl = new ArrayList<>();
    for (Object o : events) {
      if (o instanceof ChangeRecord c) {
        changes.add(c);
      } else {
        ddl.add((DdlEvent) o);
      }
    }
    return new ChunkSpec(partitionId, seq, changes, ddl);
  }

  /** The envelope's events in total order (ChangeRecord and DdlEvent objects). */
  public static List<Object> events(TransactionEnvelope e) {
    List<Object> all = new ArrayList<>();
    int i = 0;
    int j = 0;
    while (i < e.getChangesCount() || j < e.getDdlEventsCount()) {
      boolean change =
          j >= e.getDdlEventsCount()
              || (i < e.getChangesCount()
                  && e.getChanges(i).getTotalOrder() < e.getDdlEvents(j).getTotalOrder());
      all.add(change ? e.getChanges(i++) : e.getDdlEvents(j++));
    }
    return all;
  }

  // ---- breaking
  // ---------------------------------------------------------------------------------------

  /**
   * Chunk {@code i} replaced by {@code chunk} (checksummed here); the manifest lists the new
   * checksum.
   */
  public Barriers withChunk(int i, PartitionChunk chunk) {
    List<PartitionChunk> cs = new ArrayList<>(chunks);
    cs.set(i, TrellaraCodec.withChecksum(chunk.toBuilder().clearChecksum().build()));
    return assemble(source, mode, partitionCount, cs, UnaryOperator.identity());
  }

  /**
   * Chunk {@code i} as bytes a protobuf writer would not produce but a consumer must accept: its
   * protocol_version written as the two-byte varint {@code 81 00}, the checksum over those bytes
   * (which a re-encoding of the parsed chunk does not hash to); the manifest lists that checksum.
   */
  public Barriers withNonMinimalVarintChunk(int i) {
    byte[] body = chunks.get(i).toBuilder().clearChecksum().build().toByteArray();
    if (body[0] != 0x08 || body[1] != 0x01) {
      throw new IllegalStateException("protocol_version 1 is not the chunk's first field");
    }
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    out.write(body, 0, 1);
    out.write(0x81);
    out.write(0x00);
    out.write(body, 2, body.length - 2);
    byte[] wide = out.toByteArray();
    long checksum = io.trellara.protocol.codec.Checksums.xxh3(wide);
    byte[] bytes;
    try {
      java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
      all.write(wide);
      com.google.protobuf.CodedOutputStream cos =
          com.google.protobuf.CodedOutputStream.newInstance(all);
      cos.writeUInt64(MessageKind.CHUNK.checksumTag(), checksum);
      cos.flush();
      bytes = all.toByteArray();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    List<PartitionChunk> cs = new ArrayList<>(chunks);
    cs.set(i, cs.get(i).toBuilder().setChecksum(checksum).build());
    Barriers b = assemble(source, mode, partitionCount, cs, UnaryOperator.identity());
    b.chunkBytes.set(i, bytes);
    return b;
  }

  /**
   * The manifest changed by {@code tamper} (then checksummed); the marker binds the changed
   * manifest.
   */
  public Barriers withManifest(UnaryOperator<TransactionManifest.Builder> tamper) {
    return assemble(source, mode, partitionCount, chunks, tamper);
  }

  /** The marker changed by {@code tamper} (then checksummed). */
  public Barriers withMarker(UnaryOperator<TransactionCommitMarker.Builder> tamper) {
    TransactionCommitMarker k =
        TrellaraCodec.withChecksum(tamper.apply(marker.toBuilder()).clearChecksum().build());
    return new Barriers(
        source,
        mode,
        partitionCount,
        chunks,
        chunkBytes,
        manifest,
        manifestBytes,
        k,
        TrellaraCodec.encodeWithoutValidation(k).bytes());
  }

  /**
   * The chunk bytes {@code i} with one bit flipped inside {@code needle} (a text value they carry).
   */
  public Barriers flipChunkByte(int i, String needle) {
    List<byte[]> bs = new ArrayList<>(chunkBytes);
    bs.set(i, flip(chunkBytes.get(i), needle));
    return new Barriers(
        source, mode, partitionCount, chunks, bs, manifest, manifestBytes, marker, markerBytes);
  }

  public Barriers flipManifestByte(String needle) {
    return new Barriers(
        source,
        mode,
        partitionCount,
        chunks,
        chunkBytes,
        manifest,
        flip(manifestBytes, needle),
        marker,
        markerBytes);
  }

  public Barriers flipMarkerByte(String needle) {
    return new Barriers(
        source,
        mode,
        partitionCount,
        chunks,
        chunkBytes,
        manifest,
        manifestBytes,
        marker,
        flip(markerBytes, needle));
  }

  public static byte[] flip(byte[] bytes, String needle) {
    int at = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1).indexOf(needle);
    if (at < 0) {
      throw new IllegalArgumentException("'" + needle + "' is not in the bytes");
    }
    byte[] copy = bytes.clone();
    copy[at + needle.length() - 1] ^= 1;
    return copy;
  }

  // ---- publishing
  // -------------------------------------------------------------------------------------

  public List<PartitionChunk> chunks() {
    return chunks;
  }

  public TransactionManifest manifest() {
    return manifest;
  }

  public TransactionCommitMarker marker() {
    return marker;
  }

  public String key() {
    return source.getSourceId()
        + "/"
        + source.getDatabaseId()
        + ":"
        + source.getCommitLsn()
        + ":"
        + source.getTransactionId();
  }

  /**
   * The chunk messages: lane = partition_id in partitioned mode, the strict topic (-1) in strict
   * chunked.
   */
  public List<Published> chunkMessages() {
    List<Published> out = new ArrayList<>();
    for (int i = 0; i < chunks.size(); i++) {
      out.add(
          new Published(
              MessageKind.CHUNK,
              chunkBytes.get(i),
              mode == ManifestBoundaryMode.PARTITIONED_SCALE_MODE
                  ? chunks.get(i).getPartitionId()
                  : -1,
              key()));
    }
    return out;
  }

  /** The manifest and the marker, on the strict topic. */
  public List<Published> closing() {
    return List.of(
        new Published(MessageKind.MANIFEST, manifestBytes, -1, key()),
        new Published(MessageKind.COMMIT_MARKER, markerBytes, -1, key()));
  }

  /** Everything in publication order: chunks, manifest, marker. */
  public List<Published> all() {
    List<Published> out = new ArrayList<>(chunkMessages());
    out.addAll(closing());
    return out;
  }

  /** All but chunk {@code i}. */
  public List<Published> allWithout(int i) {
    List<Published> out = new ArrayList<>(chunkMessages());
    out.remove(i);
    out.addAll(closing());
    return out;
  }
}
