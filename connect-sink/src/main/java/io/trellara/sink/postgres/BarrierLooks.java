package io.trellara.sink.postgres;

import io.trellara.protocol.EventKey;
import io.trellara.protocol.Lsn;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.Checksums;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import io.trellara.protocol.validation.ProtocolRule;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.sink.port.BarrierLook;
import io.trellara.sink.port.BarrierState;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.postgres.checkpoint.CheckpointStore;
import io.trellara.sink.postgres.checkpoint.StagedLooks;
import io.trellara.sink.postgres.checkpoint.StagingStore;
import io.trellara.sink.postgres.session.TargetSession;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code Target.look} on PostgreSQL: every barrier a task waits on, judged in one read-only target
 * transaction of four statements (applied records, lane watermarks, staged chunks, payloads to read
 * back), however many barriers there are. A barrier complete but for the chunks the task holds
 * comes back with its staged chunks, verified against their checksums and parsed, so the buffer
 * reassembles it in memory and applies it grouped with its neighbours. Read-back is bounded: a
 * barrier of more than {@link #MAX_READ_BACK_PER_BARRIER} staged bytes applies the staged way
 * (merged one chunk per lane at a time), and one look reads at most {@link #MAX_READ_BACK} bytes.
 */
final class BarrierLooks {
  /** A barrier with more staged bytes than this is merged from staging, not read into memory. */
  static final long MAX_READ_BACK_PER_BARRIER = 1L << 20;

  /** At most this many payload bytes are read back by one look. */
  static final long MAX_READ_BACK = 8L << 20;

  private final TransactionApplier applier;
  private final RetryingExecutor executor;

  BarrierLooks(TransactionApplier applier, RetryingExecutor executor) {
    this.applier = applier;
    this.executor = executor;
  }

  List<BarrierLook.Seen> look(List<BarrierLook> looks) {
    if (looks.isEmpty()) {
      return List.of();
    }
    String where =
        looks.size() == 1
            ? looks.get(0).key().display()
            : looks.size() + " barriers from " + looks.get(0).key().display();
    return executor.run(
        where,
        (s, a) -> {
          s.at(null, where);
          List<BarrierLook.Seen> seen = lookIn(s, looks);
          return new RetryingExecutor.Done<>(
              seen, Set.of(), () -> applier.metrics().barrierLooks.incrementAndGet()); // read only
        });
  }

  private List<BarrierLook.Seen> lookIn(TargetSession s, List<BarrierLook> looks)
      throws SQLException {
    String sink = applier.options().sinkName();
    List<FlowKey> keys = new ArrayList<>(looks.size());
    Set<FlowKey.Flow> flows = new LinkedHashSet<>();
    Set<StagedLooks.At> ats = new LinkedHashSet<>();
    for (BarrierLook l : looks) {
      keys.add(l.key());
      TransactionManifest m = l.manifest();
      if (m != null) {
        if (m.getBoundaryMode() == ManifestBoundaryMode.PARTITIONED_SCALE_MODE) {
          flows.add(FlowKey.of(m).flow());
        }
        ats.add(at(m));
      }
    }
    Set<FlowKey> applied = CheckpointStore.findApplied(s, keys);
    Map<FlowKey.Flow, Map<Long, Lsn>> watermarks = StagedLooks.watermarks(s, sink, flows);
    Map<StagedLooks.At, List<StagedLooks.Row>> staged = StagedLooks.staged(s, sink, ats);

    List<BarrierState.Verdict> verdicts = new ArrayList<>(looks.size());
    List<StagedLooks.Wanted> wanted = new ArrayList<>();
    List<int[]> wantedOf = new ArrayList<>(); // per look: [first index in wanted, count] or null
    long budget = MAX_READ_BACK;
    for (BarrierLook l : looks) {
      TransactionManifest m = l.manifest();
      boolean done = applied.contains(l.key());
      if (m == null) {
        verdicts.add(
            done
                ? new BarrierState(true, List.of(), Map.of()).evaluate(null)
                : new BarrierState.Verdict(BarrierState.Kind.WAITING, List.of(), null, null));
        wantedOf.add(null);
        continue;
      }
      List<StagedLooks.Row> rows = staged.getOrDefault(at(m), List.of());
      List<BarrierState.Staged> at = new ArrayList<>(rows.size());
      rows.forEach(r -> at.add(r.staged()));
      BarrierState.Verdict v =
          new BarrierState(
                  done,
                  at,
                  m.getBoundaryMode() == ManifestBoundaryMode.PARTITIONED_SCALE_MODE
                      ? watermarks.getOrDefault(FlowKey.of(m).flow(), Map.of())
                      : Map.of())
              .evaluate(m);
      if (v.kind() == BarrierState.Kind.MISSING && l.head()) {
        v = failMissing(s, m, v);
      }
      verdicts.add(v);
      long bytes = readBackBytes(m, l.held(), v, rows);
      if (bytes < 0 || bytes > MAX_READ_BACK_PER_BARRIER || bytes > budget) {
        wantedOf.add(null);
        continue;
      }
      budget -= bytes;
      int first = wanted.size();
      for (ManifestPartition p : m.getPartitionsList()) {
        if (!l.held().contains(p)) {
          wanted.add(
              new StagedLooks.Wanted(
                  at(m),
                  Integer.toUnsignedLong(p.getId()),
                  Integer.toUnsignedLong(p.getChunkSequence()),
                  p.getChecksum()));
        }
      }
      wantedOf.add(new int[] {first, wanted.size() - first});
    }

    List<byte[]> payloads = StagedLooks.payloads(s, sink, wanted);
    List<BarrierLook.Seen> out = new ArrayList<>(looks.size());
    for (int i = 0; i < looks.size(); i++) {
      int[] range = wantedOf.get(i);
      List<PartitionChunk> chunks = null;
      if (range != null) {
        chunks = new ArrayList<>(range[1]);
        for (int j = range[0]; j < range[0] + range[1]; j++) {
          byte[] bytes = payloads.get(j);
          if (bytes == null) { // swept since (applied by another task): judged again next look
            chunks = null;
            break;
          }
          chunks.add(readBack(looks.get(i).manifest(), wanted.get(j), bytes));
        }
      }
      out.add(new BarrierLook.Seen(verdicts.get(i), chunks));
    }
    return out;
  }

  /**
   * A chunk read back: validated when it was staged, so its checksum over the staged bytes is
   * verified again and it is parsed; damage stops apply naming the rule and the transaction.
   */
  private static PartitionChunk readBack(
      TransactionManifest m, StagedLooks.Wanted w, byte[] bytes) {
    try {
      return (PartitionChunk) TrellaraCodec.decodeStored(MessageKind.CHUNK, bytes);
    } catch (ProtocolViolationException e) {
      throw new ProtocolViolationException(
          e.rule(),
          "staged chunk " + w.partitionId() + "/" + w.chunkSequence(),
          EventKey.transaction(m.getSourceId(), m.getSourceCommitLsn(), m.getTransactionId()),
          "the chunk staged for this transaction no longer reads back as it was staged",
          e);
    }
  }

  /**
   * The staged bytes to read back for a partitioned barrier complete but for what it holds; -1 when
   * it is not (or is applied, or of strict chunked order, whose read-back the buffer cannot use).
   */
  private static long readBackBytes(
      TransactionManifest m,
      List<ManifestPartition> held,
      BarrierState.Verdict v,
      List<StagedLooks.Row> rows) {
    if (m.getBoundaryMode() != ManifestBoundaryMode.PARTITIONED_SCALE_MODE
        || !(v.kind() == BarrierState.Kind.READY
            || v.kind() == BarrierState.Kind.WAITING && held.containsAll(v.absent()))) {
      return -1;
    }
    Map<ChunkId, Long> sizes = new HashMap<>();
    for (StagedLooks.Row r : rows) {
      BarrierState.Staged st = r.staged();
      sizes.put(new ChunkId(st.partitionId(), st.chunkSequence(), st.checksum()), r.bytes());
    }
    long bytes = 0;
    for (ManifestPartition p : m.getPartitionsList()) {
      if (!held.contains(p)) {
        Long b =
            sizes.get(
                new ChunkId(
                    Integer.toUnsignedLong(p.getId()),
                    Integer.toUnsignedLong(p.getChunkSequence()),
                    p.getChecksum()));
        if (b == null) {
          return -1;
        }
        bytes += b;
      }
    }
    return bytes;
  }

  private record ChunkId(long partitionId, long chunkSequence, long checksum) {}

  /**
   * A head barrier's listed chunk can no longer arrive: unless its transaction was applied (and
   * swept) meanwhile, the rule it breaks is thrown, the precise one when another version of the
   * chunk is staged.
   */
  private BarrierState.Verdict failMissing(
      TargetSession s, TransactionManifest m, BarrierState.Verdict v) throws SQLException {
    if (!CheckpointStore.findApplied(s, List.of(FlowKey.of(m))).isEmpty()) {
      return new BarrierState(true, List.of(), Map.of()).evaluate(m);
    }
    ManifestPartition p = v.missing();
    if (v.otherVersion() != null) {
      byte[] bytes =
          StagingStore.payload(
              s,
              applier.options().sinkName(),
              m,
              v.otherVersion().partitionId(),
              v.otherVersion().chunkSequence(),
              v.otherVersion().checksum());
      if (bytes != null) {
        BarrierVerifier.verifyChunk(m, TrellaraCodec.decodeChunk(bytes)); // names the rule
      }
    }
    throw new ProtocolViolationException(
        ProtocolRule.MISSING_CHUNK,
        "partitions[" + m.getPartitionsList().indexOf(p) + "]",
        EventKey.transaction(m.getSourceId(), m.getSourceCommitLsn(), m.getTransactionId()),
        "chunk "
            + Integer.toUnsignedString(p.getId())
            + "/"
            + Integer.toUnsignedString(p.getChunkSequence())
            + " (checksum "
            + Checksums.hex(p.getChecksum())
            + ") listed by the manifest is not staged and can no"
            + " longer arrive: "
            + (m.getBoundaryMode() == ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER
                ? "in strict chunked order every chunk precedes its manifest on the strict topic"
                : "lane "
                    + Integer.toUnsignedString(p.getId())
                    + " has been staged past commit "
                    + m.getSourceCommitLsn()));
  }

  private static StagedLooks.At at(TransactionManifest m) {
    return new StagedLooks.At(
        m.getSourceId(), m.getDatasetId(), Lsn.parse(m.getSourceCommitLsn()).toString());
  }
}
