package io.trellara.sink.postgres;

import io.trellara.connect.common.liveness.Watchdog;
import io.trellara.connect.common.retry.Sleeper;
import io.trellara.connect.common.retry.SqlFailures;
import io.trellara.protocol.EventKey;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.ApplyResult;
import io.trellara.sink.port.BarrierLook;
import io.trellara.sink.port.BarrierResult;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.port.StagedChunk;
import io.trellara.sink.port.StagedLane;
import io.trellara.sink.port.Target;
import io.trellara.sink.port.TargetStream;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.apply.ChangeWriter;
import io.trellara.sink.postgres.checkpoint.AsyncCommits;
import io.trellara.sink.postgres.checkpoint.CheckpointStore;
import io.trellara.sink.postgres.checkpoint.CommitOrder;
import io.trellara.sink.postgres.checkpoint.PartitionOwners;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.session.ConnectionFactory;
import io.trellara.sink.postgres.session.SessionWatch;
import io.trellara.sink.postgres.session.TargetSession;
import io.trellara.sink.postgres.settings.ApplyOptions;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Applies whole source transactions to the target PostgreSQL database. Consecutive transactions are
 * grouped (up to {@link ApplyOptions#groupMaxTransactions()} and {@link
 * ApplyOptions#groupMaxChanges()}) into one target transaction holding, in source order, every
 * change and DDL event, then the dedup records and the progress positions. A transaction already in
 * the dedup table is skipped and reported as a duplicate. Transient failures re-apply the whole
 * group on a fresh connection with bounded exponential backoff; the dedup check at the start of
 * every attempt makes a retry after an unknown commit outcome safe.
 *
 * <p>Chunked and partitioned boundaries go through {@link #stage} (chunks into {@code
 * trellara_sink.staged_chunks}), {@link #checkBarrier} (is every listed chunk staged?) and {@link
 * #applyBarrier} (the whole transaction from its staged chunks, in one target transaction); all
 * three share the same retry and failure handling.
 *
 * <p>Not thread-safe: one applier per sink task.
 */
public final class TransactionApplier implements Target, AutoCloseable {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(TransactionApplier.class);
  private final ConnectionFactory connections;
  private final RelationMapper mapper;
  private final ApplyOptions options;
  private final ApplyMetrics metrics = new ApplyMetrics();
  private final CommitOrder order;
  private final RetryingExecutor executor;
  private final AsyncCommits asyncCommits = new AsyncCommits();

  /**
   * The session of the streamed barrier in progress (kept open across them); see {@link
   * StreamedBarrier}.
   */
  private TargetSession streamSession;

  /** This task's name in {@code trellara_sink.partition_owners}; unique per task start. */
  private String owner = PartitionOwners.ownerName("task ?");

  /** Bounds every wait of this applier's sessions (apply.stall.timeout.ms); null when unbounded. */
  private final Watchdog watchdog;

  /** The main session's stalls (units of work run by the executor). */
  private final SessionWatch mainWatch;

  /** The streamed barrier's session's stalls. */
  private final SessionWatch streamWatch;

  private final EnvelopeGroups envelopes;
  private final StagedBarriers barriers;
  private final BarrierLooks looks;
  private final Ownership ownership;
  private final StagingVacuum stagingVacuum;

  public TransactionApplier(
      ConnectionFactory connections, RelationMapper mapper, ApplyOptions options) {
    this(connections, mapper, options, Sleeper.SYSTEM);
  }

  public TransactionApplier(
      ConnectionFactory connections, RelationMapper mapper, ApplyOptions options, Sleeper sleeper) {
    this(connections, mapper, options, sleeper, System::nanoTime);
  }

  /** With a clock for the retry budget (tests advance it with their sleeper). */
  public TransactionApplier(
      ConnectionFactory connections,
      RelationMapper mapper,
      ApplyOptions options,
      Sleeper sleeper,
      java.util.function.LongSupplier nanoClock) {
    this.connections = Objects.requireNonNull(connections, "connections");
    this.mapper = Objects.requireNonNull(mapper, "mapper");
    this.options = Objects.requireNonNull(options, "options");
    this.order = new CommitOrder(options.flowBounds());
    this.mainWatch = new SessionWatch(connections);
    this.streamWatch = new SessionWatch(connections);
    if (options.stallTimeout().isZero() || options.stallTimeout().isNegative()) {
      this.watchdog = null;
    } else {
      this.watchdog = Watchdog.start(options.sinkName(), options.stallTimeout());
      mainWatch.stage(watchdog.stage("target statement", mainWatch));
      streamWatch.stage(watchdog.stage("streamed transaction", streamWatch));
    }
    this.executor =
        new RetryingExecutor(
                connections,
                options.retryPolicy(),
                metrics.retries,
                sleeper,
                nanoClock::getAsLong,
                order,
                asyncCommits,
                mainWatch)
            .asynchronousCommits(options.synchronousCommitOff());
    this.envelopes = new EnvelopeGroups(this, executor);
    this.barriers = new StagedBarriers(this, executor);
    this.looks = new BarrierLooks(this, executor);
    this.ownership = new Ownership(this, executor, asyncCommits);
    this.stagingVacuum = new StagingVacuum(options.sinkName(), metrics.stagingVacuums, nanoClock);
  }

  /** The stages this applier's watchdog bounds (for JMX); empty when unbounded. */
  public java.util.List<io.trellara.connect.common.liveness.Stage> stages() {
    return watchdog == null ? java.util.List.of() : watchdog.stages();
  }

  public ApplyMetrics metrics() {
    return metrics;
  }

  public ApplyOptions options() {
    return options;
  }

  public RelationMapper mapper() {
    return mapper;
  }

  /**
   * Names this applier's claims after its task: {@code who} (e.g. "my-sink task 0") with the
   * worker's process and a random suffix, so a restarted task fences its own earlier incarnation.
   */
  public TransactionApplier ownedBy(String who) {
    owner = PartitionOwners.ownerName(who);
    return this;
  }

  public String owner() {
    return owner;
  }

  // ---- streamed barriers
  // ------------------------------------------------------------------------------

  /**
   * Opens the target transaction of a strict-chunked transaction whose first chunk is {@code first}
   * (see {@link StreamedBarrier}), on the stream's own session: the dedup check and the
   * commit-order check run now. Throws {@link TargetStream.TransientFailure} when the target cannot
   * be reached.
   */
  @Override
  public StreamedBarrier openStream(PartitionChunk first) {
    return fencedOr(() -> open(first));
  }

  private StreamedBarrier open(PartitionChunk first) {
    try {
      if (streamSession == null) {
        streamSession = TargetSession.open(connections, streamWatch.stage());
        streamWatch.watch(streamSession);
      }
      asyncCommits.checkProgress();
      streamWorking(
          "the first chunk of "
              + EventKey.transaction(
                  first.getSourceId(), first.getCommitLsn(), first.getTransactionId()));
      return new StreamedBarrier(this, streamSession, first, order.pending());
    } catch (SQLException e) {
      if (streamSession != null && streamSession.stalled() != null) {
        String stall = streamSession.stalled();
        String relation = streamSession.relation();
        rolledBack(streamSession);
        throw RetryingExecutor.stalled(
            stall,
            relation,
            EventKey.transaction(
                first.getSourceId(), first.getCommitLsn(), first.getTransactionId()),
            e);
      }
      String state = SqlFailures.sqlState(e);
      boolean transientFailure =
          streamSession == null || RetryingExecutor.isTransient(streamSession, e);
      rolledBack(streamSession);
      if (transientFailure) {
        throw new TargetStream.TransientFailure(
            "cannot open the target transaction of "
                + first.getSourceId()
                + ':'
                + first.getCommitLsn()
                + ':'
                + first.getTransactionId()
                + " (SQLSTATE "
                + state
                + "): "
                + e.getMessage(),
            e);
      }
      throw RetryingExecutor.translate(
          e,
          null,
          EventKey.transaction(
              first.getSourceId(), first.getCommitLsn(), first.getTransactionId()));
    } catch (RuntimeException e) {
      rolledBack(streamSession);
      throw e;
    } finally {
      streamIdle();
    }
  }

  /** The streamed barrier's session works on {@code what}: its stall bound runs. */
  public void streamWorking(String what) {
    if (streamWatch.stage() != null) {
      streamWatch.stage().waiting(what);
    }
  }

  /** The streamed barrier's session waits for the next chunk, not for the target. */
  public void streamIdle() {
    if (streamWatch.stage() != null) {
      streamWatch.stage().idle();
    }
  }

  /** A streamed barrier committed: its commit order becomes known, its rows count. */
  public void committed(ChangeWriter writer, CommitOrder.Pending admitted, boolean duplicate) {
    asyncCommits.committed(options.synchronousCommitOff());
    order.committed(admitted);
    if (duplicate) {
      metrics.targetCommits.incrementAndGet();
      metrics.duplicatesSkipped.incrementAndGet();
    } else {
      publish(writer, 1, 0);
      metrics.barriersApplied.incrementAndGet();
    }
  }

  /** A streamed barrier rolled back (or failed to open): a broken session is discarded. */
  public void rolledBack(TargetSession s) {
    if (s == null) {
      return;
    }
    order.forget();
    if (s.stalled() != null || !s.rollbackQuietly()) {
      s.close(); // a session the watchdog cancelled may be half way through its protocol
      asyncCommits.connectionLost();
      if (s == streamSession) {
        streamSession = null;
        streamWatch.watch(null);
      }
    } else {
      s.forgetTables();
    }
  }

  /** Applies one transaction (in its own target transaction). */
  public ApplyResult apply(SourceTransaction transaction) {
    return apply(List.of(transaction));
  }

  /**
   * Applies consecutive source transactions in order, grouped per {@link
   * ApplyOptions#groupMaxTransactions()} ({@link EnvelopeGroups}).
   */
  @Override
  public ApplyResult apply(List<SourceTransaction> transactions) {
    return fencedOr(() -> envelopes.apply(transactions));
  }

  /**
   * Stages verified chunks in one target transaction, with their lanes' watermarks and {@code
   * positions} ({@link StagedBarriers}); returns the transactions set aside.
   */
  @Override
  public Set<FlowKey> stage(List<StagedChunk> chunks, Map<TopicPartitionKey, Long> positions) {
    return fencedOr(() -> barriers.stage(chunks, positions));
  }

  @Override
  public List<BarrierLook.Seen> look(List<BarrierLook> looks) {
    return fencedOr(() -> this.looks.look(looks));
  }

  @Override
  public BarrierResult applyBarrier(
      TransactionManifest m, Map<TopicPartitionKey, Long> positions, List<PartitionChunk> held) {
    return fencedOr(() -> barriers.apply(m, positions, held));
  }

  /**
   * The staging table's vacuum ({@link StagingVacuum}), run between this applier's transactions.
   */
  StagingVacuum stagingVacuum() {
    return stagingVacuum;
  }

  @Override
  public Map<StagedLane, Long> stagedBehindOldest() {
    return barriers.stagedBehindOldest();
  }

  /** True when the transaction is recorded as applied (one query in its own transaction). */
  public boolean isApplied(FlowKey key) {
    return executor.run(
        key.display(),
        (s, a) ->
            RetryingExecutor.Done.of(!CheckpointStore.findApplied(s, List.of(key)).isEmpty()));
  }

  void publish(ChangeWriter w, int applied, int duplicates) {
    metrics.targetCommits.incrementAndGet();
    metrics.transactionsApplied.addAndGet(applied);
    metrics.duplicatesSkipped.addAndGet(duplicates);
    metrics.rowsInserted.addAndGet(w.inserted());
    metrics.rowsUpdated.addAndGet(w.updated());
    metrics.rowsDeleted.addAndGet(w.deleted());
    metrics.truncates.addAndGet(w.truncates());
    metrics.ddlReplayed.addAndGet(w.ddlReplayed());
    metrics.ddlSkipped.addAndGet(w.ddlSkipped());
    metrics.schemaChanges.addAndGet(w.schemaChanges());
    metrics.missingRowsIgnored.addAndGet(w.missingRowsIgnored());
  }

  // ---- what the task needs ---------------------------------------------------------------------

  @Override
  public Map<TopicPartitionKey, Long> claim(List<TopicPartitionKey> partitions) {
    return ownership.claim(partitions);
  }

  /** The claims other tasks hold on any of {@code partitions}, for a message. */
  public List<String> claimsByOthers(java.util.Collection<TopicPartitionKey> partitions) {
    return ownership.claimsByOthers(partitions);
  }

  /** The progress the target records for this sink. */
  public Map<TopicPartitionKey, Long> recordedPositions() {
    return ownership.recordedPositions();
  }

  @Override
  public Map<TopicPartitionKey, Long> durable(Map<TopicPartitionKey, Long> applied) {
    return ownership.durable(applied);
  }

  /** {@code e}, or the fence that explains it (another task claimed this task's partitions). */
  public ApplyException fencedOr(ApplyException e) {
    return ownership.fencedOr(e);
  }

  private <T> T fencedOr(java.util.function.Supplier<T> work) {
    try {
      return work.get();
    } catch (ApplyException e) {
      throw fencedOr(e);
    }
  }

  @Override
  public void close() {
    if (streamSession != null) {
      streamSession.rollbackQuietly();
      streamSession.close();
      streamSession = null;
    }
    executor.close();
    if (watchdog != null) {
      watchdog.close();
    }
  }
}
