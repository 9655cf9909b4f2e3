package io.trellara.sink.postgres;

import io.trellara.connect.common.retry.SqlFailures;
import io.trellara.protocol.LogText;
import io.trellara.protocol.Snapshots;
import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.protocol.validation.StreamingBarrierVerifier;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.BarrierResult;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.TargetStream;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.apply.ChangeWriter;
import io.trellara.sink.postgres.checkpoint.AppliedRecords;
import io.trellara.sink.postgres.checkpoint.AppliedTransaction;
import io.trellara.sink.postgres.checkpoint.BodyDigests;
import io.trellara.sink.postgres.checkpoint.CheckpointStore;
import io.trellara.sink.postgres.checkpoint.CommitOrder;
import io.trellara.sink.postgres.session.TargetSession;
import io.trellara.sink.postgres.settings.SnapshotApplyMode;
import io.trellara.sink.postgres.snapshot.SnapshotTableCommits;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * A strict-chunked transaction applied as its chunks arrive: one target transaction opened at the
 * first chunk, each chunk's events written when it comes (COPY for runs of inserts, as for any
 * transaction), and COMMIT only after the commit marker binds the manifest and the manifest has
 * been checked against every chunk ({@link StreamingBarrierVerifier}: the rules, in the order, of
 * the staged path). Until then nothing is visible; any failure rolls everything back. No chunk is
 * staged or decoded twice, and memory holds one chunk at a time.
 *
 * <p>Runs on a session of its own (the task's other work, such as staging lane chunks or applying
 * another flow's envelopes, commits on the main session while this transaction stays open).
 * Failures: a {@link TargetStream.TransientFailure} means the target connection failed and the
 * transaction must be delivered again from its first chunk; {@link ApplyException} and {@link
 * ProtocolViolationException} stop apply naming the cause.
 */
public final class StreamedBarrier implements TargetStream {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(StreamedBarrier.class);

  /** A transaction still open after this long is logged with its progress, again every as long. */
  static final long PROGRESS_LOG_NANOS = 10_000_000_000L;

  private final TransactionApplier applier;
  private final TargetSession session;
  private final TransactionBoundaryKey key;
  private final FlowKey flowKey;
  private final StreamingBarrierVerifier verifier;
  private final ChangeWriter writer;
  private final CommitOrder.Pending order;
  private final boolean alreadyApplied;

  /**
   * snapshot.apply=per_table and this is a snapshot: each table commits on its own; null otherwise.
   */
  private final SnapshotTableCommits tables;

  private final long started = System.nanoTime();
  private long lastLog = started;
  private long lastOrder;
  private long changes;

  /**
   * The tables of a snapshot transaction, for its line at the commit (a snapshot's chunks carry one
   * table after the other: their first and last rows name them all); null for any other.
   */
  private final java.util.Set<String> snapshotTables;

  private long ddlEvents;
  private int nextIndex;
  private TransactionManifest manifest;
  private boolean open = true;

  public StreamedBarrier(
      TransactionApplier applier,
      TargetSession session,
      PartitionChunk first,
      CommitOrder.Pending order)
      throws SQLException {
    this.applier = applier;
    this.session = session;
    this.order = order;
    this.key =
        new TransactionBoundaryKey(
            first.getSourceId(),
            first.getDatabaseId(),
            first.getCommitLsn(),
            first.getTransactionId());
    this.flowKey = new FlowKey(first.getDatasetId(), key);
    this.verifier = new StreamingBarrierVerifier(first);
    session.at(null, key.display());
    this.alreadyApplied = !CheckpointStore.findApplied(session, List.of(flowKey)).isEmpty();
    if (!alreadyApplied) {
      order.admit(session, flowKey, false);
    }
    this.tables =
        !alreadyApplied
                && Snapshots.isSnapshot(first.getTransactionId())
                && applier.options().snapshotApply() == SnapshotApplyMode.PER_TABLE
            ? SnapshotTableCommits.open(session, flowKey, applier.options().sinkName())
            : null;
    this.snapshotTables =
        Snapshots.isSnapshot(first.getTransactionId()) ? new java.util.LinkedHashSet<>() : null;
    this.writer = new ChangeWriter(session, applier.mapper(), applier.options());
    writer.begin(
        first.getSourceId(), first.getDatasetId(), first.getCommitLsn(), first.getTransactionId());
  }

  public TransactionBoundaryKey key() {
    return key;
  }

  public int nextIndex() {
    return nextIndex;
  }

  public TransactionManifest manifest() {
    return manifest;
  }

  public boolean manifestSeen() {
    return manifest != null;
  }

  public boolean continuesWith(PartitionChunk c) {
    return manifest == null
        && c.getPartitionId() == nextIndex
        && c.getTransactionId().equals(key.transactionId())
        && c.getCommitLsn().equals(key.commitLsn())
        && c.getSourceId().equals(key.sourceId());
  }

  public boolean isManifest(TransactionManifest m) {
    return manifest == null
        && nextIndex > 0
        && m.getTransactionId().equals(key.transactionId())
        && m.getSourceCommitLsn().equals(key.commitLsn())
        && m.getSourceId().equals(key.sourceId());
  }

  private static String tableName(ChangeRecord c) {
    return c.getRelation().getSchema() + "." + c.getRelation().getTable();
  }

  /** Writes one chunk's events (the chunk is verified and validated on its own). */
  @Override
  public void write(PartitionChunk c) {
    verifier.chunk(c);
    nextIndex++;
    if (alreadyApplied) {
      return; // a replay of an applied transaction: only its barrier is checked, then progress
      // recorded
    }
    List<ChangeRecord> cs = c.getChangesList();
    List<DdlEvent> ds = c.getDdlEventsList();
    long first =
        Math.min(
            cs.isEmpty() ? Long.MAX_VALUE : cs.get(0).getTotalOrder(),
            ds.isEmpty() ? Long.MAX_VALUE : ds.get(0).getTotalOrder());
    if (first != Long.MAX_VALUE && first <= lastOrder) {
      throw new TargetStream.CannotStream(
          "chunk "
              + c.getPartitionId()
              + " of "
              + key.display()
              + " starts at total_order "
              + first
              + ", not after "
              + lastOrder);
    }
    if (tables != null && ds.isEmpty()) {
      run(() -> tables.write(writer, c.getSchemaVersionsList(), cs));
    } else {
      run(() -> writer.write(c.getSchemaVersionsList(), cs, ds));
    }
    lastOrder =
        Math.max(
            lastOrder,
            Math.max(
                cs.isEmpty() ? 0 : cs.get(cs.size() - 1).getTotalOrder(),
                ds.isEmpty() ? 0 : ds.get(ds.size() - 1).getTotalOrder()));
    changes += cs.size();
    ddlEvents += ds.size();
    if (snapshotTables != null && !cs.isEmpty()) {
      snapshotTables.add(tableName(cs.get(0)));
      snapshotTables.add(tableName(cs.get(cs.size() - 1)));
    }
    long now = System.nanoTime();
    if (now - lastLog >= PROGRESS_LOG_NANOS) {
      lastLog = now;
      LOG.info(
          "Applying {} as its chunks arrive: {} chunk(s), {} change(s) written in {} s, not yet visible"
              + " (commits at its commit marker)",
          LogText.escape(key.display()),
          nextIndex,
          changes,
          (now - started) / 1_000_000_000L);
    }
  }

  /**
   * Takes the manifest; it is checked against the chunks once its marker binds it (as the staged
   * path does).
   */
  @Override
  public void manifest(TransactionManifest m) {
    manifest = m;
  }

  /**
   * The marker: verified against the manifest, then the dedup record, {@code positions} and COMMIT.
   * After this the transaction is visible whole.
   */
  @Override
  public BarrierResult commit(TransactionCommitMarker k, Map<TopicPartitionKey, Long> positions) {
    BarrierVerifier.verifyMarker(manifest, k);
    verifier.manifest(manifest);
    run(
        () -> {
          writer.flush();
          session.at(null, key.display());
          if (alreadyApplied) {
            BodyDigests.requireSameBodies(
                session, java.util.Map.of(flowKey, BodyDigests.manifest(manifest.getChecksum())));
          }
          List<AppliedTransaction> records =
              alreadyApplied
                  ? List.of()
                  : List.of(AppliedTransaction.of(manifest, changes, ddlEvents));
          if (tables != null) {
            tables.finish();
          }
          AppliedRecords.record(
              session,
              applier.options().sinkName(),
              applier.owner(),
              records,
              positions,
              applier.options().synchronousCommitOff());
        });
    applier.streamWorking("the COMMIT of " + key.display());
    try {
      session.commit();
    } catch (SQLException e) {
      // the outcome is unknown: delivered again, the dedup check at the first chunk tells applied
      // or not
      throw fail(e);
    } finally {
      applier.streamIdle();
    }
    open = false;
    applier.committed(writer, order, alreadyApplied);
    long ms = (System.nanoTime() - started) / 1_000_000L;
    if (snapshotTables != null && !alreadyApplied) {
      // the end of a (re-)load as the target sees it: one line per snapshot, whatever its size
      LOG.info(
          "Applied snapshot {} to the target: table(s) {}, {} row(s), {} chunk(s), {} ms from first"
              + " chunk to commit",
          LogText.escape(key.display()),
          LogText.escape(String.join(", ", snapshotTables)),
          changes,
          nextIndex,
          ms);
    } else if (ms >= PROGRESS_LOG_NANOS / 1_000_000L) {
      LOG.info(
          "Applied {} as its chunks arrived: {} chunk(s), {} change(s), {} ms from first chunk to commit",
          LogText.escape(key.display()),
          nextIndex,
          changes,
          ms);
    }
    return new BarrierResult(
        key,
        alreadyApplied,
        alreadyApplied ? 0 : changes,
        alreadyApplied ? 0 : ddlEvents,
        nextIndex,
        1,
        1);
  }

  /** Rolls back whatever was written; nothing of the transaction is visible. Idempotent. */
  @Override
  public void rollback() {
    if (open) {
      open = false;
      applier.rolledBack(session);
    }
  }

  @FunctionalInterface
  private interface SqlWork {
    void run() throws SQLException;
  }

  private void run(SqlWork work) {
    applier.streamWorking(key.display());
    try {
      work.run();
    } catch (SQLException e) {
      throw fail(e);
    } catch (ApplyException e) {
      rollback();
      throw applier.fencedOr(e);
    } catch (RuntimeException e) {
      rollback();
      throw e;
    } finally {
      applier.streamIdle();
    }
  }

  /**
   * Rolls back; a transient failure asks for the transaction again, anything else stops naming the
   * change.
   */
  private RuntimeException fail(SQLException e) {
    String relation = session.relation();
    String eventKey = session.eventKey() == null ? key.display() : session.eventKey();
    String stall = session.stalled();
    if (stall != null) {
      rollback();
      return RetryingExecutor.stalled(stall, relation, eventKey, e);
    }
    boolean transientFailure = RetryingExecutor.isTransient(session, e);
    rollback();
    if (transientFailure) {
      return new TargetStream.TransientFailure(
          "transient failure applying "
              + eventKey
              + " (SQLSTATE "
              + SqlFailures.sqlState(e)
              + "): "
              + e.getMessage(),
          e);
    }
    return applier.fencedOr(
        new ApplyException(
            ApplyException.Reason.DATABASE_ERROR,
            relation,
            eventKey,
            SqlFailures.sqlState(e),
            "the target refused the change: " + e.getMessage(),
            e));
  }
}
