package io.trellara.sink.engine;

import io.trellara.protocol.Lsn;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import io.trellara.protocol.validation.ProtocolRule;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.protocol.validation.StreamingBarrierVerifier;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.ApplyResult;
import io.trellara.sink.port.BarrierLook;
import io.trellara.sink.port.BarrierResult;
import io.trellara.sink.port.BarrierState;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.port.StagedChunk;
import io.trellara.sink.port.StagedLane;
import io.trellara.sink.port.Target;
import io.trellara.sink.port.TargetProgressLost;
import io.trellara.sink.port.TargetStream;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.ApplyMetrics;
import io.trellara.sink.postgres.settings.ApplyOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The target port in memory, for unit tests of the pipeline: the transactions committed (in commit
 * order, each with the total orders of its events), the dedup set, progress, staged chunks and lane
 * watermarks, with the same dedup, commit-order and barrier rules as the database (the barrier
 * rules through the same {@link BarrierState} and verifiers). Visible state changes only at a
 * commit; a stream's events are held until its marker. Faults: {@link #failStreamWritesAfter} makes
 * a stream's write fail as a cut connection would. Shared by several pipelines, it is several tasks
 * of one sink.
 */
class InMemoryTarget implements Target {
  /**
   * One committed source transaction: its key and its events' total orders in the order written.
   */
  record Committed(FlowKey key, List<Long> orders) {}

  private record StageKey(
      String sourceId,
      String commitLsn,
      String transactionId,
      long partitionId,
      long sequence,
      long checksum) {}

  private ApplyOptions options = ApplyOptions.builder("fake").build();
  private final ApplyMetrics metrics = new ApplyMetrics();
  private final List<Committed> commits = new ArrayList<>();
  private final Map<FlowKey, Committed> applied = new HashMap<>();
  private final Map<FlowKey.Flow, Lsn> lastApplied = new HashMap<>();
  private final Map<TopicPartitionKey, Long> progress = new LinkedHashMap<>();
  private final Map<StageKey, StagedChunk> staged = new LinkedHashMap<>();
  private final Map<String, Lsn> watermarks = new HashMap<>();
  private final List<Long> pauses = new ArrayList<>();
  private int streamWritesLeft = Integer.MAX_VALUE;
  private int openStreams;
  private int heldReads;
  private boolean loseProgress;
  private boolean fence;
  private int applyCalls;

  // ---- what tests look at
  // -------------------------------------------------------------------------------

  List<Committed> commits() {
    return commits;
  }

  /** Commit LSNs of the committed transactions, in commit order. */
  List<String> committedLsns() {
    return commits.stream().map(c -> c.key().transaction().commitLsn()).toList();
  }

  Map<TopicPartitionKey, Long> progress() {
    return progress;
  }

  /** Flips a byte of every staged chunk's payload (a damaged staging table). */
  void damageStaged() {
    for (StagedChunk c : staged.values()) {
      c.payload()[c.payload().length / 2] ^= 0x5a;
    }
  }

  int stagedChunks() {
    return staged.size();
  }

  /** Chunks a barrier read from the task's memory instead of staging. */
  int heldReads() {
    return heldReads;
  }

  /** Calls of {@link #apply} (each one target transaction here). */
  int applyCalls() {
    return applyCalls;
  }

  int openStreams() {
    return openStreams;
  }

  List<Long> pauses() {
    return pauses;
  }

  /** The next apply finds the target restarted with its last asynchronous commits lost (once). */
  void loseProgressOnce() {
    loseProgress = true;
  }

  /** The next apply is refused as another task's claim would refuse it (once). */
  void fenceOnce() {
    fence = true;
  }

  /** How long the engine waits, fenced, for Kafka to assign its partitions elsewhere. */
  void retryFor(java.time.Duration d) {
    options = ApplyOptions.builder("fake").maxRetryDuration(d).build();
  }

  /** The next stream write after {@code writes} more fails as a cut connection (once). */
  void failStreamWritesAfter(int writes) {
    streamWritesLeft = writes;
  }

  // ---- the port
  // -------------------------------------------------------------------------------------------

  @Override
  public ApplyResult apply(List<SourceTransaction> transactions) {
    applyCalls++;
    if (loseProgress) {
      loseProgress = false;
      throw new TargetProgressLost("the target restarted; commits may be lost");
    }
    if (fence) {
      fence = false;
      throw new ApplyException(
          ApplyException.Reason.FENCED,
          null,
          transactions.get(0).key().display(),
          "task other claimed the partitions");
    }
    List<TransactionBoundaryKey> done = new ArrayList<>();
    List<TransactionBoundaryKey> duplicates = new ArrayList<>();
    Map<TopicPartitionKey, Long> positions = new LinkedHashMap<>();
    List<Committed> group = new ArrayList<>();
    Map<FlowKey.Flow, Lsn> admitted = new HashMap<>(lastApplied);
    for (SourceTransaction t : transactions) {
      FlowKey k = t.flowKey();
      if (t.topicPartition() != null) {
        positions.put(t.topicPartition(), t.nextOffset());
      }
      positions.putAll(t.lanePositions());
      if (applied.containsKey(k) || group.stream().anyMatch(c -> c.key().equals(k))) {
        duplicates.add(k.transaction());
        continue;
      }
      admit(admitted, k);
      group.add(
          new Committed(k, orders(t.envelope().getChangesList(), t.envelope().getDdlEventsList())));
      done.add(k.transaction());
    }
    commit(group, positions);
    for (SourceTransaction t : transactions) {
      if (t.fromChunks()) { // its chunks may be staged: swept with its apply, as the target does
        sweep(t.envelope().getSourceId(), t.envelope().getCommitLsn());
      }
    }
    metrics.transactionsApplied.addAndGet(done.size());
    metrics.duplicatesSkipped.addAndGet(duplicates.size());
    metrics.countBarriers(
        transactions.stream()
            .filter(t -> t.fromChunks() && done.contains(t.key()))
            .map(SourceTransaction::key)
            .distinct()
            .count());
    return new ApplyResult(done, duplicates, positions, 1, 1);
  }

  @Override
  public Set<FlowKey> stage(List<StagedChunk> chunks, Map<TopicPartitionKey, Long> positions) {
    int added = 0;
    Set<FlowKey> aside = new java.util.LinkedHashSet<>();
    for (StagedChunk c : chunks) {
      FlowKey k =
          new FlowKey(
              c.datasetId(),
              new TransactionBoundaryKey(
                  c.sourceId(), c.databaseId(), c.commitLsn(), c.transactionId()));
      if (setAside.test(k)) {
        aside.add(k); // as the target does past staging.flow.max.bytes: nothing of it staged
        continue;
      }
      if (applied.containsKey(k)) {
        continue;
      }
      StageKey sk =
          new StageKey(
              c.sourceId(),
              c.commitLsn(),
              c.transactionId(),
              c.partitionId(),
              c.chunkSequence(),
              c.checksum());
      if (staged.putIfAbsent(sk, c) == null) {
        added++;
      }
      if (c.partitioned()) {
        watermarks.merge(
            lane(c.sourceId(), c.datasetId(), c.partitionId()),
            Lsn.parse(c.commitLsn()),
            (a, b) -> a.compareTo(b) >= 0 ? a : b);
      }
    }
    if (aside.isEmpty()) {
      positions.forEach(this::advance);
    }
    metrics.chunksStaged.addAndGet(added);
    return aside;
  }

  /** Transactions whose chunks {@link #stage} sets aside (a flow past its staging bound). */
  java.util.function.Predicate<FlowKey> setAside = k -> false;

  /** Whether {@link #look} reads back the staged chunks of barriers complete but for the held. */
  boolean readsBack;

  /** How many looks were answered (one target transaction each). */
  int looks;

  @Override
  public List<BarrierLook.Seen> look(List<BarrierLook> asked) {
    looks++;
    List<BarrierLook.Seen> out = new ArrayList<>(asked.size());
    for (BarrierLook l : asked) {
      TransactionManifest m = l.manifest();
      if (m == null) {
        out.add(
            new BarrierLook.Seen(
                applied.containsKey(l.key())
                    ? new BarrierState(true, List.of(), Map.of()).evaluate(null)
                    : new BarrierState.Verdict(BarrierState.Kind.WAITING, List.of(), null, null),
                null));
        continue;
      }
      BarrierState.Verdict v = l.head() ? checkBarrier(m) : state(m).evaluate(m);
      List<PartitionChunk> staged = null;
      boolean complete =
          v.kind() == BarrierState.Kind.READY
              || v.kind() == BarrierState.Kind.WAITING && l.held().containsAll(v.absent());
      if (readsBack
          && complete
          && m.getBoundaryMode() == ManifestBoundaryMode.PARTITIONED_SCALE_MODE) {
        staged = new ArrayList<>();
        for (ManifestPartition p : m.getPartitionsList()) {
          if (!l.held().contains(p)) {
            staged.add(
                (PartitionChunk)
                    TrellaraCodec.decodeStored(MessageKind.CHUNK, listed(m, p).payload()));
          }
        }
      }
      out.add(new BarrierLook.Seen(v, staged));
    }
    return out;
  }

  private BarrierState state(TransactionManifest m) {
    List<BarrierState.Staged> at = new ArrayList<>();
    staged.forEach(
        (k, c) -> {
          if (k.sourceId().equals(m.getSourceId())
              && k.commitLsn().equals(m.getSourceCommitLsn())) {
            at.add(
                new BarrierState.Staged(
                    k.partitionId(), k.sequence(), k.checksum(), k.transactionId()));
          }
        });
    Map<Long, Lsn> lanes = new HashMap<>();
    for (ManifestPartition p : m.getPartitionsList()) {
      long id = Integer.toUnsignedLong(p.getId());
      Lsn w = watermarks.get(lane(m.getSourceId(), m.getDatasetId(), id));
      if (w != null) {
        lanes.put(id, w);
      }
    }
    return new BarrierState(applied.containsKey(FlowKey.of(m)), at, lanes);
  }

  BarrierState.Verdict checkBarrier(TransactionManifest m) {
    BarrierState.Verdict v = state(m).evaluate(m);
    if (v.kind() == BarrierState.Kind.MISSING) {
      if (v.otherVersion() != null) {
        BarrierState.Staged o = v.otherVersion();
        StagedChunk other =
            staged.get(
                new StageKey(
                    m.getSourceId(),
                    m.getSourceCommitLsn(),
                    o.transactionId(),
                    o.partitionId(),
                    o.chunkSequence(),
                    o.checksum()));
        BarrierVerifier.verifyChunk(m, TrellaraCodec.decodeChunk(other.payload()));
      }
      throw new ProtocolViolationException(
          ProtocolRule.MISSING_CHUNK,
          "partitions",
          key(m),
          "chunk " + Integer.toUnsignedString(v.missing().getId()) + " can no longer arrive");
    }
    return v;
  }

  @Override
  public BarrierResult applyBarrier(
      TransactionManifest m, Map<TopicPartitionKey, Long> positions, List<PartitionChunk> held) {
    FlowKey k = FlowKey.of(m);
    if (applied.containsKey(k)) {
      positions.forEach(this::advance);
      sweep(m);
      metrics.duplicatesSkipped.incrementAndGet();
      return new BarrierResult(k.transaction(), true, 0, 0, 0, 0, 1);
    }
    TreeMap<Long, Boolean> events = new TreeMap<>(Long::compareUnsigned);
    long changes = 0;
    long ddl = 0;
    for (ManifestPartition p : m.getPartitionsList()) {
      PartitionChunk chunk =
          held.stream()
              .filter(
                  c ->
                      c.getPartitionId() == p.getId()
                          && c.getChunkSequence() == p.getChunkSequence()
                          && c.getChecksum() == p.getChecksum())
              .findFirst()
              .orElse(null);
      if (chunk == null) {
        StagedChunk c =
            listed(m, p); // by source, LSN and entry: its own check names a foreign transaction
        if (c == null) {
          throw new ProtocolViolationException(
              ProtocolRule.MISSING_CHUNK,
              "partitions",
              key(m),
              "chunk " + p.getId() + " is no longer staged");
        }
        chunk = (PartitionChunk) TrellaraCodec.decodeStored(MessageKind.CHUNK, c.payload());
        heldReads--;
      }
      heldReads++;
      BarrierVerifier.verifyChunk(m, chunk);
      for (ChangeRecord r : chunk.getChangesList()) {
        once(events, r.getTotalOrder(), m);
      }
      for (DdlEvent d : chunk.getDdlEventsList()) {
        once(events, d.getTotalOrder(), m);
      }
      changes += chunk.getChangesCount();
      ddl += chunk.getDdlEventsCount();
    }
    Map<FlowKey.Flow, Lsn> admitted = new HashMap<>(lastApplied);
    admit(admitted, k);
    commit(List.of(new Committed(k, new ArrayList<>(events.keySet()))), positions);
    sweep(m);
    metrics.barriersApplied.incrementAndGet();
    metrics.transactionsApplied.incrementAndGet();
    return new BarrierResult(k.transaction(), false, changes, ddl, m.getPartitionsCount(), 1, 1);
  }

  @Override
  public Map<StagedLane, Long> stagedBehindOldest() {
    Map<String, Lsn> oldest = new HashMap<>();
    for (StagedChunk c : staged.values()) {
      if (c.partitioned()) {
        oldest.merge(
            c.sourceId() + '/' + c.datasetId(),
            Lsn.parse(c.commitLsn()),
            (a, b) -> a.compareTo(b) <= 0 ? a : b);
      }
    }
    Map<StagedLane, Long> out = new HashMap<>();
    for (StagedChunk c : staged.values()) {
      if (c.partitioned()
          && Lsn.parse(c.commitLsn()).compareTo(oldest.get(c.sourceId() + '/' + c.datasetId()))
              > 0) {
        out.merge(
            new StagedLane(c.sourceId(), c.datasetId(), c.partitionId()),
            (long) c.payload().length,
            Long::sum);
      }
    }
    return out;
  }

  @Override
  public Map<TopicPartitionKey, Long> claim(List<TopicPartitionKey> partitions) {
    Map<TopicPartitionKey, Long> out = new LinkedHashMap<>();
    for (TopicPartitionKey p : partitions) {
      if (progress.containsKey(p)) {
        out.put(p, progress.get(p));
      }
    }
    return out;
  }

  public List<String> claimsByOthers(java.util.Collection<TopicPartitionKey> partitions) {
    return List.of(); // one owner per pipeline here: fencing is tested with fenceOnce
  }

  public Map<TopicPartitionKey, Long> recordedPositions() {
    return Map.copyOf(progress);
  }

  @Override
  public Map<TopicPartitionKey, Long> durable(Map<TopicPartitionKey, Long> applied) {
    return applied; // commits here are synchronous
  }

  public boolean isApplied(FlowKey key) {
    return applied.containsKey(key);
  }

  @Override
  public TargetStream openStream(PartitionChunk first) {
    FlowKey k =
        new FlowKey(
            first.getDatasetId(),
            new TransactionBoundaryKey(
                first.getSourceId(),
                first.getDatabaseId(),
                first.getCommitLsn(),
                first.getTransactionId()));
    boolean duplicate = applied.containsKey(k);
    if (!duplicate) {
      admit(new HashMap<>(lastApplied), k);
    }
    openStreams++;
    return new Stream(k, first, duplicate);
  }

  public ApplyOptions options() {
    return options;
  }

  public ApplyMetrics metrics() {
    return metrics;
  }

  public void pause(long millis) {
    pauses.add(millis);
  }

  public void close() {}

  // ---- internals
  // ------------------------------------------------------------------------------------------

  /**
   * Strict order per flow, as CommitOrder: an unapplied transaction must come after the newest
   * applied.
   */
  private static void admit(Map<FlowKey.Flow, Lsn> admitted, FlowKey k) {
    Lsn lsn = Lsn.parse(k.transaction().commitLsn());
    Lsn last = admitted.get(k.flow());
    if (last != null && lsn.compareTo(last) <= 0) {
      throw new ApplyException(
          ApplyException.Reason.OUT_OF_ORDER,
          null,
          k.transaction().display(),
          "commit LSN " + lsn + " is at or below " + last);
    }
    admitted.put(k.flow(), lsn);
  }

  private void commit(List<Committed> group, Map<TopicPartitionKey, Long> positions) {
    for (Committed c : group) {
      commits.add(c);
      applied.put(c.key(), c);
      lastApplied.merge(
          c.key().flow(),
          Lsn.parse(c.key().transaction().commitLsn()),
          (a, b) -> a.compareTo(b) >= 0 ? a : b);
    }
    positions.forEach(this::advance);
    metrics.targetCommits.incrementAndGet();
  }

  /** Progress never moves backwards (the conditional upsert of the database). */
  private void advance(TopicPartitionKey tp, long next) {
    progress.merge(tp, next, Math::max);
  }

  private void sweep(TransactionManifest m) {
    sweep(m.getSourceId(), m.getSourceCommitLsn());
  }

  private void sweep(String sourceId, String commitLsn) {
    staged
        .keySet()
        .removeIf(
            k ->
                k.sourceId().equals(sourceId)
                    && Lsn.parse(k.commitLsn()).compareTo(Lsn.parse(commitLsn)) <= 0);
  }

  private StagedChunk listed(TransactionManifest m, ManifestPartition p) {
    for (Map.Entry<StageKey, StagedChunk> e : staged.entrySet()) {
      StageKey k = e.getKey();
      if (k.sourceId().equals(m.getSourceId())
          && k.commitLsn().equals(m.getSourceCommitLsn())
          && k.partitionId() == Integer.toUnsignedLong(p.getId())
          && k.sequence() == Integer.toUnsignedLong(p.getChunkSequence())
          && k.checksum() == p.getChecksum()) {
        return e.getValue();
      }
    }
    return null;
  }

  /** The merge's rule: no total_order twice in one transaction. */
  private static void once(TreeMap<Long, Boolean> events, long order, TransactionManifest m) {
    if (events.put(order, true) != null) {
      throw new ProtocolViolationException(
          ProtocolRule.DUPLICATE_TOTAL_ORDER,
          "total_order",
          key(m) + ":" + order,
          "total_order " + order + " appears twice");
    }
  }

  private static List<Long> orders(List<ChangeRecord> changes, List<DdlEvent> ddl) {
    List<Long> out = new ArrayList<>();
    changes.forEach(c -> out.add(c.getTotalOrder()));
    ddl.forEach(d -> out.add(d.getTotalOrder()));
    out.sort(Long::compareUnsigned);
    return out;
  }

  private static String lane(String sourceId, String datasetId, long lane) {
    return sourceId + '/' + datasetId + '/' + lane;
  }

  private static String key(TransactionManifest m) {
    return m.getSourceId() + ':' + m.getSourceCommitLsn() + ':' + m.getTransactionId();
  }

  /** A stream holds its events until its marker commits them. */
  private final class Stream implements TargetStream {
    private final FlowKey key;
    private final boolean duplicate;
    private final StreamingBarrierVerifier verifier;
    private final List<Long> orders = new ArrayList<>();
    private TransactionManifest manifest;
    private int next;
    private boolean open = true;

    Stream(FlowKey key, PartitionChunk first, boolean duplicate) {
      this.key = key;
      this.duplicate = duplicate;
      this.verifier = new StreamingBarrierVerifier(first);
    }

    public TransactionBoundaryKey key() {
      return key.transaction();
    }

    public int nextIndex() {
      return next;
    }

    public TransactionManifest manifest() {
      return manifest;
    }

    public boolean manifestSeen() {
      return manifest != null;
    }

    public boolean continuesWith(PartitionChunk c) {
      return manifest == null
          && c.getPartitionId() == next
          && c.getTransactionId().equals(key.transaction().transactionId())
          && c.getCommitLsn().equals(key.transaction().commitLsn());
    }

    public boolean isManifest(TransactionManifest m) {
      return manifest == null
          && next > 0
          && m.getTransactionId().equals(key.transaction().transactionId())
          && m.getSourceCommitLsn().equals(key.transaction().commitLsn());
    }

    @Override
    public void write(PartitionChunk c) {
      if (streamWritesLeft-- <= 0) {
        streamWritesLeft = Integer.MAX_VALUE;
        rollback();
        throw new TargetStream.TransientFailure("connection cut (in-memory target)", null);
      }
      verifier.chunk(c);
      next++;
      long last = orders.isEmpty() ? 0 : orders.get(orders.size() - 1);
      List<Long> these = InMemoryTarget.orders(c.getChangesList(), c.getDdlEventsList());
      if (!these.isEmpty() && these.get(0) <= last) {
        rollback();
        throw new TargetStream.CannotStream("out of total order");
      }
      orders.addAll(these);
    }

    @Override
    public void manifest(TransactionManifest m) {
      manifest = m;
    }

    @Override
    public BarrierResult commit(TransactionCommitMarker k, Map<TopicPartitionKey, Long> positions) {
      try {
        BarrierVerifier.verifyMarker(manifest, k);
        verifier.manifest(manifest);
      } catch (RuntimeException e) {
        rollback();
        throw e;
      }
      open = false;
      openStreams--;
      if (duplicate) {
        positions.forEach(InMemoryTarget.this::advance);
        metrics.duplicatesSkipped.incrementAndGet();
      } else {
        InMemoryTarget.this.commit(List.of(new Committed(key, orders)), positions);
        metrics.barriersApplied.incrementAndGet();
        metrics.transactionsApplied.incrementAndGet();
      }
      return new BarrierResult(key.transaction(), duplicate, orders.size(), 0, next, 1, 1);
    }

    @Override
    public void rollback() {
      if (open) {
        open = false;
        openStreams--;
      }
    }
  }
}
