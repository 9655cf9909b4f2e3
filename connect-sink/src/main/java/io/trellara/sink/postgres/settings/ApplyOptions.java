package io.trellara.sink.postgres.settings;

import io.trellara.connect.common.retry.Backoff;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Settings of a {@link TransactionApplier}. Build with {@link #builder(String)}; every setting has
 * a safe default.
 *
 * @param sinkName the sink's name in {@code trellara_sink.progress}
 * @param groupMaxTransactions at most this many consecutive source transactions, of those already
 *     buffered, per target transaction ({@code apply.group.max.transactions}, default {@value
 *     #DEFAULT_GROUP_MAX_TRANSACTIONS})
 * @param groupMaxChanges a group takes no further transaction once it holds this many changes
 *     ({@code apply.group.max.changes}, default {@value #DEFAULT_GROUP_MAX_CHANGES}); a source
 *     transaction is never split
 * @param synchronousCommitOff {@code SET LOCAL synchronous_commit = off} in every target
 *     transaction; safe because progress is recorded in the same transaction (default true)
 * @param insertConflict insert conflict handling (default {@link InsertConflictPolicy#FAIL})
 * @param missingRow an update/delete matching no row (default {@link MissingRowPolicy#FAIL})
 * @param ddlPolicy DDL events (default {@link DdlPolicy#STRUCTURED})
 * @param schemaEvolution derive schema changes from the wire's schema versions (default {@link
 *     SchemaEvolutionMode#AUTO})
 * @param dropColumns a column the source no longer has (default {@link DropColumnsPolicy#KEEP})
 * @param createMissingTables create a missing target table from the envelope's schema (default
 *     false)
 * @param allowedTypes qualified names of the types, beyond the built-ins and their arrays, the sink
 *     creates columns of ({@code target.types.allowed}, default none)
 * @param lossyTables qualified target tables where schema evolution may apply a change that loses
 *     values: a narrowing retype, a dropped column ({@code schema.evolution.lossy.tables}, default
 *     none)
 * @param copyThreshold insert runs of at least this many rows go through COPY (default 64)
 * @param maxRetryDuration how long transient failures of one unit of work are retried before apply
 *     stops (default 10 minutes): a bound in time, so a target outage of any length up to it is
 *     ridden out whatever the backoff
 * @param initialBackoff first retry delay, doubled per attempt (default 200 ms)
 * @param maxBackoff cap of the retry delay (default 2 s)
 * @param snapshotTarget a snapshot into a non-empty target table (default {@link
 *     SnapshotTargetPolicy#FAIL})
 * @param snapshotApply one target transaction for the whole snapshot, or one per table (default
 *     {@link SnapshotApplyMode#ATOMIC})
 * @param stallTimeout how long a target statement, COPY or lock wait may go without progress before
 *     it is cancelled and rolled back and the task fails as {@code STALLED} (default 5 minutes;
 *     zero: no bound)
 * @param retryJitter the share of each retry delay taken off at random (default 0.2), so tasks that
 *     failed together do not retry together
 * @param flowBounds how far a flow's commit LSN may advance, and which flows are applied (default
 *     {@link FlowBounds#DEFAULT}: 1 TiB, any flow)
 */
public record ApplyOptions(
    String sinkName,
    int groupMaxTransactions,
    int groupMaxChanges,
    boolean synchronousCommitOff,
    InsertConflictPolicy insertConflict,
    MissingRowPolicy missingRow,
    DdlPolicy ddlPolicy,
    SchemaEvolutionMode schemaEvolution,
    DropColumnsPolicy dropColumns,
    boolean createMissingTables,
    List<String> allowedTypes,
    List<String> lossyTables,
    int copyThreshold,
    Duration maxRetryDuration,
    Duration initialBackoff,
    Duration maxBackoff,
    SnapshotTargetPolicy snapshotTarget,
    SnapshotApplyMode snapshotApply,
    Duration stallTimeout,
    double retryJitter,
    FlowBounds flowBounds) {
  public static final int DEFAULT_GROUP_MAX_TRANSACTIONS = 500;
  public static final int DEFAULT_GROUP_MAX_CHANGES = 10_000;

  public ApplyOptions {
    Objects.requireNonNull(sinkName, "sinkName");
    Objects.requireNonNull(insertConflict, "insertConflict");
    Objects.requireNonNull(missingRow, "missingRow");
    Objects.requireNonNull(ddlPolicy, "ddlPolicy");
    Objects.requireNonNull(schemaEvolution, "schemaEvolution");
    Objects.requireNonNull(dropColumns, "dropColumns");
    allowedTypes = List.copyOf(allowedTypes);
    lossyTables = List.copyOf(lossyTables);
    Objects.requireNonNull(initialBackoff, "initialBackoff");
    Objects.requireNonNull(maxBackoff, "maxBackoff");
    Objects.requireNonNull(snapshotTarget, "snapshotTarget");
    Objects.requireNonNull(snapshotApply, "snapshotApply");
    if (groupMaxTransactions < 1) {
      throw new IllegalArgumentException("groupMaxTransactions must be >= 1");
    }
    if (groupMaxChanges < 1) {
      throw new IllegalArgumentException("groupMaxChanges must be >= 1");
    }
    Objects.requireNonNull(maxRetryDuration, "maxRetryDuration");
    if (maxRetryDuration.isNegative()) {
      throw new IllegalArgumentException("maxRetryDuration must not be negative");
    }
    if (copyThreshold < 1) {
      throw new IllegalArgumentException("copyThreshold must be >= 1");
    }
    Objects.requireNonNull(stallTimeout, "stallTimeout");
    Objects.requireNonNull(flowBounds, "flowBounds");
  }

  /** The one retry policy, with this sink's figures. */
  public Backoff.Policy retryPolicy() {
    return Backoff.Policy.of(initialBackoff, maxBackoff, maxRetryDuration, retryJitter);
  }

  public static Builder builder(String sinkName) {
    return new Builder(sinkName);
  }

  public static ApplyOptions defaults(String sinkName) {
    return builder(sinkName).build();
  }

  public Builder toBuilder() {
    return new Builder(sinkName)
        .groupMaxTransactions(groupMaxTransactions)
        .groupMaxChanges(groupMaxChanges)
        .synchronousCommitOff(synchronousCommitOff)
        .insertConflict(insertConflict)
        .missingRow(missingRow)
        .ddlPolicy(ddlPolicy)
        .schemaEvolution(schemaEvolution)
        .dropColumns(dropColumns)
        .createMissingTables(createMissingTables)
        .allowedTypes(allowedTypes)
        .lossyTables(lossyTables)
        .copyThreshold(copyThreshold)
        .maxRetryDuration(maxRetryDuration)
        .initialBackoff(initialBackoff)
        .maxBackoff(maxBackoff)
        .snapshotTarget(snapshotTarget)
        .snapshotApply(snapshotApply)
        .stallTimeout(stallTimeout)
        .retryJitter(retryJitter)
        .flowBounds(flowBounds);
  }

  public static final class Builder {
    private final String sinkName;
    private int groupMaxTransactions = DEFAULT_GROUP_MAX_TRANSACTIONS;
    private int groupMaxChanges = DEFAULT_GROUP_MAX_CHANGES;
    private boolean synchronousCommitOff = true;
    private InsertConflictPolicy insertConflict = InsertConflictPolicy.FAIL;
    private MissingRowPolicy missingRow = MissingRowPolicy.FAIL;
    private DdlPolicy ddlPolicy = DdlPolicy.STRUCTURED;
    private SchemaEvolutionMode schemaEvolution = SchemaEvolutionMode.AUTO;
    private DropColumnsPolicy dropColumns = DropColumnsPolicy.KEEP;
    private boolean createMissingTables;
    private List<String> allowedTypes = List.of();
    private List<String> lossyTables = List.of();
    private int copyThreshold = 64;
    private Duration maxRetryDuration = Duration.ofMinutes(10);
    private Duration initialBackoff = Duration.ofMillis(200);
    private Duration maxBackoff = Duration.ofSeconds(2);
    private SnapshotTargetPolicy snapshotTarget = SnapshotTargetPolicy.FAIL;
    private SnapshotApplyMode snapshotApply = SnapshotApplyMode.ATOMIC;
    private Duration stallTimeout = Duration.ofMinutes(5);
    private double retryJitter = 0.2;
    private FlowBounds flowBounds = FlowBounds.DEFAULT;

    private Builder(String sinkName) {
      this.sinkName = sinkName;
    }

    public Builder groupMaxTransactions(int v) {
      groupMaxTransactions = v;
      return this;
    }

    public Builder groupMaxChanges(int v) {
      groupMaxChanges = v;
      return this;
    }

    public Builder synchronousCommitOff(boolean v) {
      synchronousCommitOff = v;
      return this;
    }

    public Builder insertConflict(InsertConflictPolicy v) {
      insertConflict = v;
      return this;
    }

    public Builder missingRow(MissingRowPolicy v) {
      missingRow = v;
      return this;
    }

    public Builder ddlPolicy(DdlPolicy v) {
      ddlPolicy = v;
      return this;
    }

    public Builder schemaEvolution(SchemaEvolutionMode v) {
      schemaEvolution = v;
      return this;
    }

    public Builder dropColumns(DropColumnsPolicy v) {
      dropColumns = v;
      return this;
    }

    public Builder createMissingTables(boolean v) {
      createMissingTables = v;
      return this;
    }

    public Builder allowedTypes(List<String> v) {
      allowedTypes = v;
      return this;
    }

    public Builder lossyTables(List<String> v) {
      lossyTables = v;
      return this;
    }

    public Builder copyThreshold(int v) {
      copyThreshold = v;
      return this;
    }

    public Builder maxRetryDuration(Duration v) {
      maxRetryDuration = v;
      return this;
    }

    public Builder initialBackoff(Duration v) {
      initialBackoff = v;
      return this;
    }

    public Builder maxBackoff(Duration v) {
      maxBackoff = v;
      return this;
    }

    public Builder snapshotTarget(SnapshotTargetPolicy v) {
      snapshotTarget = v;
      return this;
    }

    public Builder snapshotApply(SnapshotApplyMode v) {
      snapshotApply = v;
      return this;
    }

    public Builder stallTimeout(Duration v) {
      stallTimeout = v;
      return this;
    }

    public Builder retryJitter(double v) {
      retryJitter = v;
      return this;
    }

    public Builder flowBounds(FlowBounds v) {
      flowBounds = v;
      return this;
    }

    public ApplyOptions build() {
      return new ApplyOptions(
          sinkName,
          groupMaxTransactions,
          groupMaxChanges,
          synchronousCommitOff,
          insertConflict,
          missingRow,
          ddlPolicy,
          schemaEvolution,
          dropColumns,
          createMissingTables,
          allowedTypes,
          lossyTables,
          copyThreshold,
          maxRetryDuration,
          initialBackoff,
          maxBackoff,
          snapshotTarget,
          snapshotApply,
          stallTimeout,
          retryJitter,
          flowBounds);
    }
  }
}
