package io.trellara.sink.postgres;

import io.trellara.connect.common.liveness.Watchdog;
import io.trellara.connect.common.retry.Sleeper;
import io.trellara.connect.common.retry.SqlFailures;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.protocol.codec.Checksums;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import io.trellara.protocol.validation.ProtocolRule;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.ApplyResult;
import io.trellara.sink.port.BarrierResult;
import io.trellara.sink.port.BarrierState;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.FlushedPositions;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.port.StagedChunk;
import io.trellara.sink.port.StagedLane;
import io.trellara.sink.port.Target;
import io.trellara.sink.port.TargetStream;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.apply.BarrierMerge;
import io.trellara.sink.postgres.apply.ChangeWriter;
import io.trellara.sink.postgres.apply.StreamedBarrier;
import io.trellara.sink.postgres.checkpoint.AppliedRecords;
import io.trellara.sink.postgres.checkpoint.AppliedTransaction;
import io.trellara.sink.postgres.checkpoint.AsyncCommits;
import io.trellara.sink.postgres.checkpoint.CheckpointStore;
import io.trellara.sink.postgres.checkpoint.CommitOrder;
import io.trellara.sink.postgres.checkpoint.PartitionOwners;
import io.trellara.sink.postgres.checkpoint.StagingStore;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.session.ConnectionFactory;
import io.trellara.sink.postgres.session.RetryingExecutor;
import io.trellara.sink.postgres.session.SessionWatch;
import io.trellara.sink.postgres.session.TargetSession;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
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
  private final CommitOrder order = new CommitOrder();
  private final RetryingExecutor executor;
  private final AsyncCommits asyncCommits = new AsyncCommits();

  /**
   * The session of the streamed barrier in progress (kept open across them); see {@link
   * StreamedBarrier}.
   */
  private TargetSession streamSession;

  /** The partitions this task claimed last: where another task's claim means a fence. */
  private List<TopicPartitionKey> claimed = List.of();

  /** With asynchronous commits: which applied positions the target has flushed. */
  private final FlushedPositions book = new FlushedPositions();

  /** This task's name in {@code trellara_sink.partition_owners}; unique per task start. */
  private String owner = PartitionOwners.ownerName("task ?");

  /** Bounds every wait of this applier's sessions (apply.stall.timeout.ms); null when unbounded. */
  private final Watchdog watchdog;

  /** The main session's stalls (units of work run by the executor). */
  private final SessionWatch mainWatch;

  /** The streamed barrier's session's stalls. */
  private final SessionWatch streamWatch;

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
      streamWorking("the first chunk of " + first.getSourceId() + ':' + first.getCommitLsn());
      return new StreamedBarrier(this, streamSession, first, order.pending());
    } catch (SQLException e) {
      if (streamSession != null && streamSession.stalled() != null) {
        String stall = streamSession.stalled();
        String relation = streamSession.relation;
        rolledBack(streamSession);
        throw RetryingExecutor.stalled(
            stall, relation, first.getSourceId() + ':' + first.getCommitLsn(), e);
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
          first.getSourceId() + ':' + first.getCommitLsn() + ':' + first.getTransactionId());
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
   * ApplyOptions#groupMaxTransactions()}. Returns when every one is applied or found already
   * applied; throws {@link ApplyException} otherwise, in which case the groups before the failing
   * one are committed (see the result of earlier calls), and so are the transactions before the
   * failing one when its group was retried one transaction at a time.
   *
   * <p>A group the database refuses ({@link ApplyException.Reason#DATABASE_ERROR}) is applied again
   * one source transaction per target transaction, so grouping never fails what applying alone
   * would accept: on the source each transaction's deferred constraint checks ran at its own
   * commit, and an {@code ALTER TABLE} from schema evolution cannot run while an earlier
   * transaction of the group left deferred trigger events pending (SQLSTATE 55006).
   */
  @Override
  public ApplyResult apply(List<SourceTransaction> transactions) {
    return fencedOr(() -> applyAll(transactions));
  }

  private ApplyResult applyAll(List<SourceTransaction> transactions) {
    List<TransactionBoundaryKey> applied = new ArrayList<>();
    List<TransactionBoundaryKey> duplicates = new ArrayList<>();
    Map<TopicPartitionKey, Long> positions = new LinkedHashMap<>();
    int commits = 0;
    int attempts = 0;
    for (List<SourceTransaction> g :
        groups(transactions, options.groupMaxTransactions(), options.groupMaxChanges())) {
      for (GroupOutcome o : applyGroupOrEach(g)) {
        applied.addAll(o.applied);
        duplicates.addAll(o.duplicates);
        positions.putAll(o.positions);
        commits++;
        attempts += o.attempts;
      }
    }
    return new ApplyResult(applied, duplicates, positions, commits, attempts);
  }

  private List<GroupOutcome> applyGroupOrEach(List<SourceTransaction> group) {
    try {
      return List.of(applyGroup(group));
    } catch (ApplyException e) {
      if (group.size() == 1 || e.reason() != ApplyException.Reason.DATABASE_ERROR) {
        throw e;
      }
      LOG.warn(
          "The target refused a group of {} source transactions (from {}; SQLSTATE {}): applying them one"
              + " target transaction each; the cause: {}",
          group.size(),
          group.get(0).key().display(),
          e.sqlState(),
          e.getMessage());
      metrics.groupsSplit.incrementAndGet();
      List<GroupOutcome> each = new ArrayList<>(group.size());
      for (SourceTransaction t : group) {
        each.add(applyGroup(List.of(t)));
      }
      return each;
    }
  }

  /**
   * Splits consecutive transactions into groups of at most {@code maxTransactions}; a group takes
   * no further transaction once it holds {@code maxChanges} changes and DDL events (a source
   * transaction is never split). A transaction with DDL events starts a group: on the source its
   * DDL ran after the earlier transactions had committed and fired their deferred triggers, and an
   * {@code ALTER TABLE} refuses to run while any are pending.
   */
  static List<List<SourceTransaction>> groups(
      List<SourceTransaction> transactions, int maxTransactions, int maxChanges) {
    List<List<SourceTransaction>> out = new ArrayList<>();
    int from = 0;
    long changes = 0;
    for (int i = 0; i < transactions.size(); i++) {
      boolean ddl = transactions.get(i).envelope().getDdlEventsCount() > 0;
      if (i > from && (i - from >= maxTransactions || changes >= maxChanges || ddl)) {
        out.add(transactions.subList(from, i));
        from = i;
        changes = 0;
      }
      changes += events(transactions.get(i));
    }
    if (from < transactions.size()) {
      out.add(transactions.subList(from, transactions.size()));
    }
    return out;
  }

  private static long events(SourceTransaction t) {
    return (long) t.envelope().getChangesCount() + t.envelope().getDdlEventsCount();
  }

  private record GroupOutcome(
      List<TransactionBoundaryKey> applied,
      List<TransactionBoundaryKey> duplicates,
      Map<TopicPartitionKey, Long> positions,
      int attempts) {}

  private GroupOutcome applyGroup(List<SourceTransaction> group) {
    return executor.run(group.get(0).key().display(), (s, a) -> applyOnce(s, group, a));
  }

  // ---- barriers
  // ---------------------------------------------------------------------------------------

  /**
   * Stages verified chunks in one target transaction: the chunks (a replay, or a chunk of a
   * transaction already applied, is a no-op), the watermarks of their lanes, and {@code positions}
   * (progress of the partitions whose every record up to there is now durable in the target).
   * Returns the chunks newly staged.
   */
  @Override
  public int stage(List<StagedChunk> chunks, Map<TopicPartitionKey, Long> positions) {
    return fencedOr(() -> stageAll(chunks, positions));
  }

  private int stageAll(List<StagedChunk> chunks, Map<TopicPartitionKey, Long> positions) {
    if (chunks.isEmpty() && positions.isEmpty()) {
      return 0;
    }
    String where = chunks.isEmpty() ? null : chunks.get(0).describe();
    boolean[] inserted =
        executor.run(
            where,
            (s, a) -> {
              s.at(null, where);
              boolean[] rows =
                  chunks.isEmpty()
                      ? new boolean[0]
                      : StagingStore.stage(s, options.sinkName(), chunks);
              AppliedRecords.record(
                  s,
                  options.sinkName(),
                  owner,
                  List.of(),
                  positions,
                  options.synchronousCommitOff());
              return RetryingExecutor.Done.of(rows);
            });
    int staged = 0;
    for (int i = 0; i < inserted.length; i++) {
      if (inserted[i]) {
        staged++;
        metrics.stagedBytes.addAndGet(chunks.get(i).payload().length);
      }
    }
    metrics.chunksStaged.addAndGet(staged);
    return staged;
  }

  /**
   * Where the barrier of {@code m} stands: applied already, ready, or waiting for chunks that may
   * still be staged. A chunk that can no longer arrive fails closed: {@link
   * ProtocolViolationException} with {@code MISSING_CHUNK}, or, when another version of the chunk
   * is staged, the rule its verification against the manifest breaks (transaction id, identity,
   * checksum).
   */
  @Override
  public BarrierState.Verdict barrier(FlowKey key, TransactionManifest m) {
    if (m == null) {
      return isApplied(key)
          ? new BarrierState(true, List.of(), Map.of()).evaluate(null)
          : new BarrierState.Verdict(BarrierState.Kind.WAITING, List.of(), null, null);
    }
    return fencedOr(() -> checkBarrier(m));
  }

  /** {@link #barrier} of a manifest. */
  public BarrierState.Verdict checkBarrier(TransactionManifest m) {
    String key = boundaryKey(m).display();
    return executor.run(
        key,
        (s, a) -> {
          s.at(null, key);
          BarrierState state = StagingStore.state(s, options.sinkName(), m);
          BarrierState.Verdict v = state.evaluate(m);
          if (v.kind() == BarrierState.Kind.MISSING
              && !CheckpointStore.findApplied(s, List.of(FlowKey.of(m))).isEmpty()) {
            v =
                new BarrierState(true, List.of(), Map.of())
                    .evaluate(m); // applied (and swept) meanwhile
          }
          if (v.kind() == BarrierState.Kind.MISSING) {
            ManifestPartition p = v.missing();
            if (v.otherVersion() != null) {
              byte[] bytes =
                  StagingStore.payload(
                      s,
                      options.sinkName(),
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
                "partitions[" + indexOf(m, p) + "]",
                txKey(m),
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
          return RetryingExecutor.Done.of(v); // read only: the commit ends the snapshot
        });
  }

  /**
   * Applies the barrier of {@code m} (its marker already bound to it, every listed chunk staged) in
   * one target transaction: the dedup check, every event of every chunk in total order (read back
   * from staging one chunk per lane at a time, decoded and verified against the manifest), the
   * dedup record, {@code positions}, and the removal of the dataset's staged chunks up to this
   * commit. Any protocol violation rolls everything back and is thrown as it is.
   */
  @Override
  public BarrierResult applyBarrier(
      TransactionManifest m, Map<TopicPartitionKey, Long> positions, List<PartitionChunk> held) {
    return fencedOr(() -> applyWholeBarrier(m, positions, held));
  }

  private BarrierResult applyWholeBarrier(
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
                AppliedRecords.record(
                    s,
                    options.sinkName(),
                    owner,
                    List.of(),
                    positions,
                    options.synchronousCommitOff());
                StagingStore.sweep(s, options.sinkName(), m);
                boolean ours =
                    a.commitUnknown().contains(flowKey); // our earlier attempt did commit it
                return new RetryingExecutor.Done<>(
                    new BarrierResult(key, !ours, 0, 0, 0, 0, a.number()),
                    Set.of(),
                    () -> {
                      metrics.targetCommits.incrementAndGet();
                      if (ours) {
                        metrics.transactionsApplied.incrementAndGet();
                        metrics.barriersApplied.incrementAndGet();
                      } else {
                        metrics.duplicatesSkipped.incrementAndGet();
                      }
                    });
              }
              a.order().admit(s, flowKey, false);
              ChangeWriter writer = new ChangeWriter(s, mapper, options);
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
                  options.sinkName(),
                  owner,
                  List.of(AppliedTransaction.of(m, merge.changes(), merge.ddlEvents())),
                  positions,
                  options.synchronousCommitOff());
              StagingStore.sweep(s, options.sinkName(), m);
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
                    publish(writer, 1, 0);
                    metrics.barriersApplied.incrementAndGet();
                  });
            });
    return r;
  }

  @Override
  public Map<StagedLane, Long> stagedBehindOldest() {
    return executor.run(
        "the staged chunks of sink " + options.sinkName(),
        (s, a) -> RetryingExecutor.Done.of(StagingStore.stagedBehindOldest(s, options.sinkName())));
  }

  /**
   * True when the transaction is recorded as applied (one query in its own read-only transaction).
   */
  public boolean isApplied(FlowKey key) {
    return executor.run(
        key.display(),
        (s, a) ->
            RetryingExecutor.Done.of(!CheckpointStore.findApplied(s, List.of(key)).isEmpty()));
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
    byte[] bytes = StagingStore.payload(s, options.sinkName(), m, entry);
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
    return m.getSourceId() + ':' + m.getSourceCommitLsn() + ':' + m.getTransactionId();
  }

  private static TransactionBoundaryKey boundaryKey(TransactionManifest m) {
    return FlowKey.boundaryKey(m);
  }

  private RetryingExecutor.Done<GroupOutcome> applyOnce(
      TargetSession s, List<SourceTransaction> group, RetryingExecutor.Attempt attempt)
      throws SQLException {
    Set<FlowKey> commitUnknown = attempt.commitUnknown();
    List<FlowKey> keys = new ArrayList<>(group.size());
    Map<TopicPartitionKey, Long> positions = new LinkedHashMap<>();
    for (SourceTransaction t : group) {
      keys.add(t.flowKey());
      if (t.topicPartition() != null) {
        positions.put(t.topicPartition(), t.nextOffset());
      }
      positions.putAll(t.lanePositions());
    }
    s.at(null, group.get(0).key().display());
    // one round trip claims the dedup records (the dedup check), records progress and sweeps
    // earlier
    // publications' chunks; what the target held before (each flow's newest applied position,
    // whether a
    // snapshot's flow fed it before) is read first, as the claims would show in it
    List<AppliedTransaction> records = new ArrayList<>(group.size());
    Map<FlowKey.Flow, FlowKey> sweeps = new LinkedHashMap<>();
    Set<FlowKey> seen = new HashSet<>();
    ChangeWriter writer = new ChangeWriter(s, mapper, options);
    for (int i = 0; i < group.size(); i++) {
      SourceTransaction t = group.get(i);
      if (seen.add(keys.get(i))) {
        records.add(AppliedTransaction.of(t.envelope()));
        attempt.order().readLastApplied(s, keys.get(i).flow());
        writer.beforeClaim(t.envelope());
      }
      if (t.fromChunks()) {
        // reassembled in memory, it may have chunks of an earlier, partial publication staged (a
        // source
        // that crashed mid-publication, then published it again whole): swept per flow up to the
        // newest
        sweeps.put(keys.get(i).flow(), keys.get(i));
      }
    }
    AppliedRecords.Claim claim =
        AppliedRecords.claim(
            s,
            options.sinkName(),
            owner,
            records,
            positions,
            List.copyOf(sweeps.values()),
            options.synchronousCommitOff());
    if (claim.swept() > 0) {
      LOG.info(
          "Sink {} swept {} staged chunk(s) of an earlier publication of transactions up to {}",
          options.sinkName(),
          claim.swept(),
          group.get(group.size() - 1).key().display());
    }
    List<TransactionBoundaryKey> applied = new ArrayList<>();
    List<TransactionBoundaryKey> duplicates = new ArrayList<>();
    Set<FlowKey> toApply = new HashSet<>();
    seen.clear();
    for (int i = 0; i < group.size(); i++) {
      SourceTransaction t = group.get(i);
      FlowKey k = keys.get(i);
      if (!seen.add(k) || (!claim.claimed().contains(k) && !commitUnknown.contains(k))) {
        duplicates.add(k.transaction());
      } else if (!claim.claimed().contains(k)) {
        applied.add(k.transaction()); // our earlier attempt did commit it
        toApply.add(k);
      } else {
        attempt.order().admit(s, k, true);
        writer.write(t.envelope());
        applied.add(k.transaction());
        toApply.add(k);
      }
    }
    writer.flush();
    return new RetryingExecutor.Done<>(
        new GroupOutcome(applied, duplicates, positions, attempt.number()),
        toApply,
        () -> {
          publish(writer, applied.size(), duplicates.size());
          metrics.barriersApplied.addAndGet(
              group.stream()
                  .filter(t -> t.fromChunks() && applied.contains(t.key()))
                  .map(SourceTransaction::key)
                  .distinct()
                  .count());
        });
  }

  private void publish(ChangeWriter w, int applied, int duplicates) {
    metrics.targetCommits.incrementAndGet();
    metrics.transactionsApplied.addAndGet(applied);
    metrics.duplicatesSkipped.addAndGet(duplicates);
    metrics.rowsInserted.addAndGet(w.inserted);
    metrics.rowsUpdated.addAndGet(w.updated);
    metrics.rowsDeleted.addAndGet(w.deleted);
    metrics.truncates.addAndGet(w.truncates);
    metrics.ddlReplayed.addAndGet(w.ddlReplayed());
    metrics.ddlSkipped.addAndGet(w.ddlSkipped());
    metrics.schemaChanges.addAndGet(w.schemaChanges());
    metrics.missingRowsIgnored.addAndGet(w.missingRowsIgnored);
  }

  // ---- what the task needs
  // ----------------------------------------------------------------------------

  /**
   * Claims {@code partitions} for this task ({@link PartitionOwners}) and returns the progress
   * recorded for them, read after the previous owner's last commit: one target transaction.
   */
  @Override
  public Map<TopicPartitionKey, Long> claim(List<TopicPartitionKey> partitions) {
    claimed = List.copyOf(partitions);
    book.clear();
    if (partitions.isEmpty()) {
      return Map.of();
    }
    return executor.run(
        "the claim of " + partitions + " by sink " + options.sinkName(),
        (s, a) -> PartitionOwners.claimAndRead(s, options.sinkName(), owner, partitions));
  }

  /** The claims other tasks hold on any of {@code partitions}, for a message. */
  public List<String> claimsByOthers(java.util.Collection<TopicPartitionKey> partitions) {
    if (partitions.isEmpty()) {
      return List.of();
    }
    return executor.run(
        "the owners of " + partitions,
        (s, a) ->
            RetryingExecutor.Done.of(
                PartitionOwners.claimsByOthers(
                    s, options.sinkName(), owner, List.copyOf(partitions))));
  }

  /** The progress the target records for this sink. */
  public Map<TopicPartitionKey, Long> recordedPositions() {
    return executor.run(
        "the progress of sink " + options.sinkName(),
        (s, a) -> RetryingExecutor.Done.of(CheckpointStore.positions(s, options.sinkName())));
  }

  /**
   * Of {@code applied} (positions whose target transactions have committed), what Kafka offsets may
   * be committed up to: with synchronous commits all of it; with asynchronous commits what the
   * target has flushed (one query of the target's WAL positions per call, tracked from one call to
   * the next in {@link FlushedPositions}).
   */
  @Override
  public Map<TopicPartitionKey, Long> durable(Map<TopicPartitionKey, Long> applied) {
    if (!options.synchronousCommitOff()) {
      return applied;
    }
    long[] wal =
        executor.run(
            "the target's WAL positions",
            (s, a) -> RetryingExecutor.Done.of(CheckpointStore.walInsertAndFlush(s)));
    Map<TopicPartitionKey, Long> flushed =
        new java.util.HashMap<>(book.offer(applied, wal[0], wal[1]));
    flushed
        .keySet()
        .retainAll(applied.keySet()); // revoked partitions are not this task's to commit
    if (book.allFlushed()) {
      asyncCommits.flushed();
    }
    return flushed;
  }

  /**
   * A failure that another task applying the same transactions at the same time would cause (its
   * row is there already, or gone): when another task has claimed this task's partitions, that is
   * what happened, and it is thrown as {@link ApplyException.Reason#FENCED} instead.
   */
  public ApplyException fencedOr(ApplyException e) {
    if (!e.reason().fencingMayExplain() || claimed.isEmpty()) {
      return e;
    }
    try {
      List<String> others = claimsByOthers(claimed);
      if (others.isEmpty()) {
        return e;
      }
      return new ApplyException(
          ApplyException.Reason.FENCED,
          e.relation(),
          e.eventKey(),
          e.sqlState(),
          "another task took this task's partitions over ("
              + String.join("; ", others)
              + ") and applied them meanwhile; what failed here: "
              + e.getMessage(),
          e);
    } catch (RuntimeException unreadable) {
      return e;
    }
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
