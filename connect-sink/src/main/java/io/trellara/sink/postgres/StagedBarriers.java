package io.trellara.sink.postgres;

import io.trellara.protocol.EventKey;
import io.trellara.protocol.LogText;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.ProtocolRule;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.sink.port.BarrierResult;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.StagedChunk;
import io.trellara.sink.port.StagedLane;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.apply.BarrierMerge;
import io.trellara.sink.postgres.apply.ChangeWriter;
import io.trellara.sink.postgres.checkpoint.AppliedRecords;
import io.trellara.sink.postgres.checkpoint.AppliedTransaction;
import io.trellara.sink.postgres.checkpoint.BodyDigests;
import io.trellara.sink.postgres.checkpoint.CheckpointStore;
import io.trellara.sink.postgres.checkpoint.StagingLimits;
import io.trellara.sink.postgres.checkpoint.StagingStore;
import io.trellara.sink.postgres.session.StagingWakeups;
import io.trellara.sink.postgres.session.TargetSession;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Chunked and partitioned boundaries: chunks staged in {@code trellara_sink.staged_chunks}, a
 * barrier checked (is every listed chunk staged?) and applied (the whole transaction from its
 * staged or held chunks, merged in total order, in one target transaction with its dedup record).
 */
final class StagedBarriers {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(StagedBarriers.class);
  private static final long AGE_SWEEP_EVERY_NANOS = 60_000_000_000L;

  private final TransactionApplier applier;
  private final RetryingExecutor executor;

  /** When chunks past staging.retention.ms were last deleted (System.nanoTime), or 0: never. */
  private long lastAgeSweep;

  StagedBarriers(TransactionApplier applier, RetryingExecutor executor) {
    this.applier = applier;
    this.executor = executor;
  }

  // ---- barriers
  // ---------------------------------------------------------------------------------------

  /**
   * Stages verified chunks in one target transaction: the chunks (a replay, or a chunk of a
   * transaction already applied, is a no-op), the watermarks of their lanes, and {@code positions}
   * (progress of the partitions whose every record up to there is now durable in the target).
   * Returns the transactions set aside (their flow is past staging.flow.max.bytes): none of their
   * chunks of this batch staged, and then no position recorded at all (the buffer holds their
   * partitions before their first chunk, and records the positions with its next commit).
   */
  Set<FlowKey> stage(List<StagedChunk> chunks, Map<TopicPartitionKey, Long> positions) {
    if (chunks.isEmpty() && positions.isEmpty()) {
      return Set.of();
    }
    // no chunks: every chunk of the batch was of a transaction set aside, only progress is left
    String where =
        chunks.isEmpty() ? "the progress of " + positions.keySet() : chunks.get(0).describe();
    Staged staged =
        executor.run(
            where,
            (s, a) -> {
              s.at(null, chunks.isEmpty() ? null : where);
              sweepAged(s);
              List<StagingLimits.SetAside> aside =
                  chunks.isEmpty()
                      ? List.of()
                      : StagingLimits.setAside(
                          s,
                          applier.options().sinkName(),
                          chunks,
                          applier.options().flowBounds().maxStagedBytesPerFlow());
              Set<FlowKey> keys = new LinkedHashSet<>();
              aside.forEach(x -> keys.add(x.transaction()));
              List<StagedChunk> kept =
                  keys.isEmpty()
                      ? chunks
                      : chunks.stream().filter(c -> !keys.contains(c.flowKey())).toList();
              boolean[] rows =
                  kept.isEmpty()
                      ? new boolean[0]
                      : StagingStore.stage(s, applier.options().sinkName(), kept);
              if (anyPartitioned(kept, rows)) { // wakes the task whose barrier waits for them
                StagingWakeups.notifyStaged(s, applier.options().sinkName());
              }
              AppliedRecords.record(
                  s,
                  applier.options().sinkName(),
                  applier.owner(),
                  List.of(),
                  keys.isEmpty() ? positions : Map.of(),
                  applier.options().synchronousCommitOff());
              return RetryingExecutor.Done.of(new Staged(kept, rows, aside));
            });
    int count = 0;
    for (int i = 0; i < staged.rows.length; i++) {
      if (staged.rows[i]) {
        count++;
        applier.metrics().stagedBytes.addAndGet(staged.kept.get(i).payload().length);
      }
    }
    applier.metrics().chunksStaged.addAndGet(count);
    Set<FlowKey> out = new LinkedHashSet<>();
    for (StagingLimits.SetAside x : staged.aside) {
      out.add(x.transaction());
      applier.metrics().transactionsSetAside.incrementAndGet();
      LOG.warn(
          "Setting aside transaction {}: flow {} has {} bytes of chunks staged for barriers that"
              + " have not completed, and its {} bytes would pass staging.flow.max.bytes ({}). Its"
              + " chunks are not staged, the other transactions go on, and the offsets of its"
              + " partitions stay before it; if its barrier arrives the task fails with STAGING_FLOW_FULL (raise"
              + " staging.flow.max.bytes and restart), and after staging.retention.ms it is dropped"
              + " as junk",
          LogText.escape(x.transaction().eventKey()),
          LogText.escape(x.transaction().flow().toString()),
          x.stagedBytes(),
          x.addedBytes(),
          x.maxBytes());
    }
    return out;
  }

  private static boolean anyPartitioned(List<StagedChunk> kept, boolean[] rows) {
    for (int i = 0; i < rows.length; i++) {
      if (rows[i] && kept.get(i).boundaryMode() == ManifestBoundaryMode.PARTITIONED_SCALE_MODE) {
        return true;
      }
    }
    return false;
  }

  /** What one staging transaction did: the chunks kept, which were inserted, what was set aside. */
  private record Staged(
      List<StagedChunk> kept, boolean[] rows, List<StagingLimits.SetAside> aside) {}

  /**
   * Applies the barrier of {@code m} (its marker already bound to it, every listed chunk staged) in
   * one target transaction: the dedup check, every event of every chunk in total order (read back
   * from staging one chunk per lane at a time, decoded and verified against the manifest), the
   * dedup record, {@code positions}, and the removal of the dataset's staged chunks up to this
   * commit. Any protocol violation rolls everything back and is thrown as it is.
   */
  BarrierResult apply(
      TransactionManifest m, Map<TopicPartitionKey, Long> positions, List<PartitionChunk> held) {
    TransactionBoundaryKey key = boundaryKey(m);
    FlowKey flowKey = FlowKey.of(m);
    BarrierResult r =
        executor.run(
            key.display(),
            (s, a) -> {
              s.at(null, key.display());
              boolean present = !CheckpointStore.findApplied(s, List.of(flowKey)).isEmpty();
              if (present) {
                BodyDigests.requireSameBodies(
                    s, Map.of(flowKey, BodyDigests.manifest(m.getChecksum())));
                AppliedRecords.record(
                    s,
                    applier.options().sinkName(),
                    applier.owner(),
                    List.of(),
                    positions,
                    applier.options().synchronousCommitOff());
                StagingStore.sweep(s, applier.options().sinkName(), m);
                boolean ours =
                    a.commitUnknown().contains(flowKey); // our earlier attempt did commit it
                return new RetryingExecutor.Done<>(
                    new BarrierResult(key, !ours, 0, 0, 0, 0, a.number()),
                    Set.of(),
                    () -> {
                      applier.metrics().targetCommits.incrementAndGet();
                      if (ours) {
                        applier.metrics().transactionsApplied.incrementAndGet();
                        applier.metrics().barriersApplied.incrementAndGet();
                      } else {
                        applier.metrics().duplicatesSkipped.incrementAndGet();
                      }
                    });
              }
              a.order().admit(s, flowKey, false);
              ChangeWriter writer = new ChangeWriter(s, applier.mapper(), applier.options());
              writer.begin(
                  m.getSourceId(), m.getDatasetId(), m.getSourceCommitLsn(), m.getTransactionId());
              BarrierMerge merge = new BarrierMerge();
              merge.run(
                  m,
                  entry -> readChunk(s, m, entry, held),
                  new BarrierMerge.EventSink() {
                    @Override
                    public void change(ChangeRecord change, List<SchemaVersion> schemas)
                        throws SQLException {
                      writer.change(change, schemas);
                    }

                    @Override
                    public void ddl(DdlEvent ddl) throws SQLException {
                      writer.ddl(ddl);
                    }
                  });
              writer.flush();
              s.at(null, key.display());
              AppliedRecords.record(
                  s,
                  applier.options().sinkName(),
                  applier.owner(),
                  List.of(AppliedTransaction.of(m, merge.changes(), merge.ddlEvents())),
                  positions,
                  applier.options().synchronousCommitOff());
              int swept = StagingStore.sweep(s, applier.options().sinkName(), m);
              return new RetryingExecutor.Done<>(
                  new BarrierResult(
                      key,
                      false,
                      merge.changes(),
                      merge.ddlEvents(),
                      merge.chunksRead(),
                      merge.peakOpenChunks(),
                      a.number()),
                  Set.of(flowKey),
                  () -> {
                    applier.publish(writer, 1, 0);
                    applier.stagingVacuum().deleted(swept);
                    applier.metrics().barriersApplied.incrementAndGet();
                  });
            });
    applier.stagingVacuum().runIfDue(executor); // between transactions, when due
    return r;
  }

  /**
   * Deletes chunks staged longer ago than staging.retention.ms, at most once a minute (or a tenth
   * of the retention), in the staging transaction (so a sweep that fails rolls back with it, and is
   * tried again).
   */
  private void sweepAged(TargetSession s) throws SQLException {
    long now = System.nanoTime();
    Duration retention = applier.options().flowBounds().stagingRetention();
    long every = Math.min(AGE_SWEEP_EVERY_NANOS, retention.toNanos() / 10);
    if (lastAgeSweep != 0 && now - lastAgeSweep < every) {
      return;
    }
    int swept = StagingLimits.sweepAged(s, applier.options().sinkName(), retention);
    lastAgeSweep = now;
    if (swept > 0) {
      LOG.warn(
          "Sink {} deleted {} staged chunk(s) older than staging.retention.ms ({} ms): no barrier"
              + " completed them",
          LogText.escape(applier.options().sinkName()),
          swept,
          retention.toMillis());
    }
  }

  Map<StagedLane, Long> stagedBehindOldest() {
    return executor.run(
        "the staged chunks of sink " + applier.options().sinkName(),
        (s, a) ->
            RetryingExecutor.Done.of(
                StagingStore.stagedBehindOldest(s, applier.options().sinkName())));
  }

  private PartitionChunk readChunk(
      TargetSession s, TransactionManifest m, ManifestPartition entry, List<PartitionChunk> held)
      throws SQLException {
    for (PartitionChunk c :
        held) { // verified when it arrived; BarrierMerge checks it against the entry
      if (c.getPartitionId() == entry.getId()
          && c.getChunkSequence() == entry.getChunkSequence()
          && c.getChecksum() == entry.getChecksum()) {
        return c;
      }
    }
    byte[] bytes = StagingStore.payload(s, applier.options().sinkName(), m, entry);
    if (bytes == null) { // swept or removed since the barrier was found ready
      throw new ProtocolViolationException(
          ProtocolRule.MISSING_CHUNK,
          "partitions[" + indexOf(m, entry) + "]",
          txKey(m),
          "chunk "
              + Integer.toUnsignedString(entry.getId())
              + "/"
              + Integer.toUnsignedString(entry.getChunkSequence())
              + " is no longer staged");
    }
    // validated when it was staged: verify the checksum over the staged bytes again, then parse
    return (PartitionChunk) TrellaraCodec.decodeStored(MessageKind.CHUNK, bytes);
  }

  private static int indexOf(TransactionManifest m, ManifestPartition p) {
    return m.getPartitionsList().indexOf(p);
  }

  private static String txKey(TransactionManifest m) {
    return EventKey.transaction(m.getSourceId(), m.getSourceCommitLsn(), m.getTransactionId());
  }

  private static TransactionBoundaryKey boundaryKey(TransactionManifest m) {
    return FlowKey.boundaryKey(m);
  }
}
