package io.trellara.protocol.boundary;

import static io.trellara.protocol.validation.ProtocolRule.EMPTY_BARRIER;

import io.trellara.protocol.EventKey;
import io.trellara.protocol.codec.EncodedMessage;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.AffectedTable;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import io.trellara.protocol.validation.ProtocolViolationException;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Plans the commit barrier of one transaction while its events stream through: events are added in
 * total order to a lane, a lane's chunk is encoded and handed out as soon as it is full (by events
 * or by bytes), and {@link #finish()} flushes what is left and returns the manifest and commit
 * marker. Memory holds at most one open chunk per lane, whatever the size of the transaction.
 *
 * <p>The byte bound is exact: no encoded chunk, and no manifest, is ever longer than {@code
 * maxChunkBytes}. A chunk's size is counted as it will be written (its identity fields at their
 * widest, each event and each schema version it carries with its field tag and length prefix, the
 * checksum field), and an event that would take an open chunk past the bound closes that chunk
 * first. An event is never split, so one that does not fit even in a chunk of its own is refused
 * ({@link ChunkBoundException}), as is a transaction whose manifest would outgrow the bound.
 *
 * <p>A flow whose records may be larger than its chunks (a plain strict flow publishing its
 * snapshot chunked: its largest record is its envelope cap) gives a separate {@code
 * maxRecordBytes}: chunks of several events are still cut at {@code maxChunkBytes}, an event larger
 * than that travels alone in a chunk of up to {@code maxRecordBytes}, and the manifest may be as
 * large.
 *
 * <ul>
 *   <li>Strict chunked transaction order: one lane; every chunk gets the next chunk index as its
 *       partition_id (a chunk index, not an ownership partition) and chunk_sequence 0.
 *   <li>Partitioned scale mode: lane = ownership partition = partition_id; a lane that fills more
 *       than one chunk numbers them with chunk_sequence 0, 1, 2...
 * </ul>
 *
 * <p>An empty barrier (no event) is rejected at planning time: it is never published.
 */
public final class BarrierPlanner {

  /** What every chunk, the manifest and the marker repeat. */
  public record TransactionHeader(
      int protocolVersion,
      String sourceId,
      String databaseId,
      String datasetId,
      String transactionId,
      String beginLsn,
      String commitLsn,
      long commitTimestampMs) {
    public TransactionHeader {
      Objects.requireNonNull(transactionId, "transactionId");
      Objects.requireNonNull(commitLsn, "commitLsn");
      beginLsn = beginLsn == null ? "" : beginLsn;
    }

    String eventKey() {
      return EventKey.transaction(sourceId, commitLsn, transactionId);
    }
  }

  /** One encoded chunk, ready to publish, with where it goes. */
  public record PlannedChunk(
      EncodedMessage message,
      int partitionId,
      int chunkSequence,
      long eventCount,
      long ddlEventCount) {
    public long checksum() {
      return message.checksum();
    }
  }

  /** The closing pair, in publication order after every chunk. */
  public record Closing(
      EncodedMessage manifest, EncodedMessage commitMarker, TransactionManifest manifestMessage) {}

  private final ChunkSizes sizes;
  private long manifestEntryBytes;

  private final TransactionHeader header;
  private final ManifestBoundaryMode mode;
  private final int partitionCount;
  private final int maxEventsPerChunk;
  private final Consumer<PlannedChunk> out;
  private final Lane[] lanes;
  private final TransactionManifest.Builder manifest;
  private final Map<RelationId, long[]> affected = new LinkedHashMap<>();
  private int nextChunkIndex;
  private long events;
  private long ddlEvents;
  private boolean finished;

  private BarrierPlanner(
      TransactionHeader header,
      ManifestBoundaryMode mode,
      int partitionCount,
      int maxEventsPerChunk,
      long maxChunkBytes,
      long maxRecordBytes,
      Consumer<PlannedChunk> out) {
    if (maxEventsPerChunk <= 0 || maxChunkBytes <= 0 || maxRecordBytes < maxChunkBytes) {
      throw new IllegalArgumentException(
          "chunk limits must be positive, and a record's no smaller than a chunk's");
    }
    this.header = header;
    this.mode = mode;
    this.partitionCount = partitionCount;
    this.maxEventsPerChunk = maxEventsPerChunk;
    this.out = Objects.requireNonNull(out, "out");
    this.lanes = new Lane[Math.max(1, partitionCount)];
    this.manifest =
        TransactionManifest.newBuilder()
            .setProtocolVersion(header.protocolVersion())
            .setSourceId(header.sourceId())
            .setDatabaseId(header.databaseId())
            .setDatasetId(header.datasetId())
            .setTransactionId(header.transactionId())
            .setSourceCommitLsn(header.commitLsn())
            .setSourceCommitTimestampMs(header.commitTimestampMs())
            .setBoundaryMode(mode)
            .setPartitionCount(partitionCount);
    this.sizes = new ChunkSizes(header, mode, manifest, maxChunkBytes, maxRecordBytes);
  }

  /**
   * Strict chunked transaction order: every chunk on the strict topic, partition_id = chunk index.
   */
  public static BarrierPlanner strictChunked(
      TransactionHeader header,
      int maxEventsPerChunk,
      long maxChunkBytes,
      Consumer<PlannedChunk> out) {
    return strictChunked(header, maxEventsPerChunk, maxChunkBytes, maxChunkBytes, out);
  }

  /**
   * Strict chunked transaction order whose records may be larger than its chunks are cut: an event
   * above {@code maxChunkBytes} travels alone in a chunk of at most {@code maxRecordBytes}.
   */
  public static BarrierPlanner strictChunked(
      TransactionHeader header,
      int maxEventsPerChunk,
      long maxChunkBytes,
      long maxRecordBytes,
      Consumer<PlannedChunk> out) {
    return new BarrierPlanner(
        header,
        ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER,
        0,
        maxEventsPerChunk,
        maxChunkBytes,
        maxRecordBytes,
        out);
  }

  /** Partitioned scale mode over {@code partitionCount} lanes of the partitioned topic. */
  public static BarrierPlanner partitioned(
      TransactionHeader header,
      int partitionCount,
      int maxEventsPerChunk,
      long maxChunkBytes,
      Consumer<PlannedChunk> out) {
    if (partitionCount <= 0) {
      throw new IllegalArgumentException("partitionCount must be positive");
    }
    return new BarrierPlanner(
        header,
        ManifestBoundaryMode.PARTITIONED_SCALE_MODE,
        partitionCount,
        maxEventsPerChunk,
        maxChunkBytes,
        maxChunkBytes,
        out);
  }

  /**
   * Adds a change, in total order, to {@code lane} (ignored in strict chunked order), with the
   * schema version of every relation it references (the chunk carries each version it needs once).
   */
  public void addChange(int lane, ChangeRecord change, SchemaVersion... referenced) {
    Lane l = lane(lane);
    int size = ChunkSizes.of(change);
    l.makeRoom(change.getTotalOrder(), size, referenced);
    l.chunk.addChanges(change);
    long[] count = affected.computeIfAbsent(change.getRelation(), r -> new long[1]);
    count[0]++;
    l.added(change.getTotalOrder(), size);
  }

  /**
   * Adds a DDL event, in total order, to {@code lane} (ignored in strict chunked order), with the
   * schema versions it leaves its tables in (carried by its chunk, each once).
   */
  public void addDdl(int lane, DdlEvent ddl, SchemaVersion... referenced) {
    Lane l = lane(lane);
    int size = ChunkSizes.of(ddl);
    l.makeRoom(ddl.getTotalOrder(), size, referenced);
    l.chunk.addDdlEvents(ddl);
    l.ddl++;
    ddlEvents++;
    l.added(ddl.getTotalOrder(), size);
  }

  public long events() {
    return events;
  }

  /**
   * Flushes every open chunk and returns the encoded manifest and commit marker.
   *
   * @throws ProtocolViolationException (EMPTY_BARRIER) when nothing was added
   */
  public Closing finish() {
    if (finished) {
      throw new IllegalStateException("barrier already finished");
    }
    finished = true;
    for (Lane l : lanes) {
      if (l != null) {
        l.flush();
      }
    }
    if (events == 0 || manifest.getPartitionsCount() == 0) {
      throw new ProtocolViolationException(
          EMPTY_BARRIER,
          "partitions",
          header.eventKey(),
          "a transaction without events has no barrier; the relay publishes nothing for it");
    }
    affected.forEach(
        (relation, count) ->
            manifest.addAffectedTables(
                AffectedTable.newBuilder().setRelation(relation).setEventCount(count[0])));
    manifest.setGlobalEventCount(events).setDdlEventCount(ddlEvents);
    EncodedMessage encodedManifest = TrellaraCodec.encode(manifest.build());
    if (encodedManifest.bytes().length > sizes.maxRecordBytes) { // its tables took it over
      throw sizes.manifestTooLarge(
          encodedManifest.bytes().length, manifest.getPartitionsCount(), affected.size());
    }
    TransactionManifest m = manifest.setChecksum(encodedManifest.checksum()).build();
    TransactionCommitMarker marker =
        TransactionCommitMarker.newBuilder()
            .setProtocolVersion(header.protocolVersion())
            .setSourceId(header.sourceId())
            .setDatabaseId(header.databaseId())
            .setDatasetId(header.datasetId())
            .setTransactionId(header.transactionId())
            .setSourceCommitLsn(header.commitLsn())
            .setSourceCommitTimestampMs(header.commitTimestampMs())
            .setGlobalEventCount(events)
            .setParticipatingPartitionCount(BarrierVerifier.participatingPartitions(m))
            .setManifestChecksum(encodedManifest.checksum())
            .build();
    return new Closing(encodedManifest, TrellaraCodec.encode(marker), m);
  }

  private Lane lane(int lane) {
    if (finished) {
      throw new IllegalStateException("barrier already finished");
    }
    int index = mode == ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER ? 0 : lane;
    if (index < 0 || index >= lanes.length) {
      throw new IllegalArgumentException("lane " + lane + " outside 0.." + (lanes.length - 1));
    }
    Lane l = lanes[index];
    if (l == null) {
      l = lanes[index] = new Lane(index);
    }
    return l;
  }

  /** One lane's open chunk. */
  private final class Lane {
    final int partition;
    final PartitionChunk.Builder chunk = PartitionChunk.newBuilder();
    final Map<SchemaVersion, Boolean> schemas =
        new IdentityHashMap<>(4); // a chunk names few relations
    int sequence;
    int count;
    int ddl;
    long bytes;
    long first;
    long last;

    Lane(int partition) {
      this.partition = partition;
    }

    /**
     * Makes the open chunk ready to take an event of {@code size} bytes (tag and length prefix
     * included) that references {@code referenced}: closes the chunk first when the event would
     * take it past the bound, refuses the event when it does not fit in a chunk of its own, and
     * adds the schema versions the chunk does not carry yet.
     */
    void makeRoom(long totalOrder, int size, SchemaVersion[] referenced) {
      long needed = size + ChunkSizes.newSchemaBytes(schemas, referenced);
      if (count > 0 && sizes.chunkHeaderBytes + bytes + needed > sizes.maxChunkBytes) {
        flush();
        needed = size + ChunkSizes.newSchemaBytes(schemas, referenced);
      }
      if (sizes.chunkHeaderBytes + needed > sizes.maxRecordBytes) {
        throw sizes.eventTooLarge(totalOrder, size, sizes.chunkHeaderBytes + needed);
      }
      for (SchemaVersion s : referenced) {
        if (schemas.putIfAbsent(s, Boolean.TRUE) == null) {
          chunk.addSchemaVersions(s);
          bytes += ChunkSizes.of(s);
        }
      }
    }

    void added(long totalOrder, int size) {
      if (count == 0) {
        first = totalOrder;
      }
      last = totalOrder;
      count++;
      events++;
      bytes += size;
      if (count >= maxEventsPerChunk) {
        flush();
      }
    }

    void flush() {
      if (count == 0) {
        return;
      }
      int partitionId =
          mode == ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER
              ? nextChunkIndex++
              : partition;
      int chunkSequence =
          mode == ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER ? 0 : sequence++;
      ChunkSizes.identity(chunk, header)
          .setBoundaryMode(mode)
          .setPartitionId(partitionId)
          .setChunkSequence(chunkSequence);
      EncodedMessage encoded = TrellaraCodec.encode(chunk.build());
      if (encoded.bytes().length > (count == 1 ? sizes.maxRecordBytes : sizes.maxChunkBytes)) {
        throw new IllegalStateException(
            "chunk of "
                + encoded.bytes().length
                + " bytes above the "
                + (count == 1 ? sizes.maxRecordBytes : sizes.maxChunkBytes)
                + "-byte bound: the size accounting is wrong");
      }
      ManifestPartition entry =
          ManifestPartition.newBuilder()
              .setId(partitionId)
              .setChunkSequence(chunkSequence)
              .setEventCount(count)
              .setFirstTotalOrder(first)
              .setLastTotalOrder(last)
              .setChecksum(encoded.checksum())
              .build();
      // the manifest grows by an entry per chunk: refuse as soon as the entries alone outgrow the
      // bound, rather than after the last chunk of a transaction that can never close
      manifestEntryBytes += ChunkSizes.of(entry);
      long manifestBytes = sizes.manifestHeaderBytes + manifestEntryBytes;
      if (manifestBytes > sizes.maxRecordBytes) {
        throw sizes.manifestTooLarge(manifestBytes, manifest.getPartitionsCount(), affected.size());
      }
      manifest.addPartitions(entry);
      PlannedChunk planned = new PlannedChunk(encoded, partitionId, chunkSequence, count, ddl);
      chunk.clear();
      schemas.clear();
      count = 0;
      ddl = 0;
      bytes = 0;
      out.accept(planned);
    }
  }
}
