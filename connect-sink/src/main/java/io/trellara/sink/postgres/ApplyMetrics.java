package io.trellara.sink.postgres;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Monotonic counters of one target, safe to read from any thread: the target implementation counts
 * what it applied (its counters are public to it), the task's JMX bean reads them through the
 * getters.
 */
public final class ApplyMetrics {
  public final AtomicLong transactionsApplied = new AtomicLong();
  public final AtomicLong duplicatesSkipped = new AtomicLong();
  public final AtomicLong targetCommits = new AtomicLong();
  public final AtomicLong rowsInserted = new AtomicLong();
  public final AtomicLong rowsUpdated = new AtomicLong();
  public final AtomicLong rowsDeleted = new AtomicLong();
  public final AtomicLong truncates = new AtomicLong();
  public final AtomicLong ddlReplayed = new AtomicLong();
  public final AtomicLong ddlSkipped = new AtomicLong();

  /** Target tables altered by structured schema evolution. */
  public final AtomicLong schemaChanges = new AtomicLong();

  public final AtomicLong missingRowsIgnored = new AtomicLong();
  public final AtomicLong retries = new AtomicLong();
  public final AtomicLong groupsSplit = new AtomicLong();
  public final AtomicLong barriersApplied = new AtomicLong();
  public final AtomicLong chunksStaged = new AtomicLong();
  public final AtomicLong stagedBytes = new AtomicLong();

  /** Vacuums of the staging table this applier ran ({@link StagingVacuum}). */
  public final AtomicLong stagingVacuums = new AtomicLong();

  /** Transactions set aside: their chunks would have taken their flow past its staging bound. */
  public final AtomicLong transactionsSetAside = new AtomicLong();

  /** Looks at waiting barriers (one target transaction each, however many barriers). */
  public final AtomicLong barrierLooks = new AtomicLong();

  /** Times another task's staging woke this one while a barrier waited. */
  public final AtomicLong stagingWakeups = new AtomicLong();

  public long transactionsApplied() {
    return transactionsApplied.get();
  }

  public long duplicatesSkipped() {
    return duplicatesSkipped.get();
  }

  public long targetCommits() {
    return targetCommits.get();
  }

  public long rowsInserted() {
    return rowsInserted.get();
  }

  public long rowsUpdated() {
    return rowsUpdated.get();
  }

  public long rowsDeleted() {
    return rowsDeleted.get();
  }

  public long truncates() {
    return truncates.get();
  }

  public long ddlReplayed() {
    return ddlReplayed.get();
  }

  public long schemaChanges() {
    return schemaChanges.get();
  }

  public long ddlSkipped() {
    return ddlSkipped.get();
  }

  public long missingRowsIgnored() {
    return missingRowsIgnored.get();
  }

  /** Attempts repeated after a transient failure. */
  public long retries() {
    return retries.get();
  }

  /**
   * Groups the target refused and that were applied again one source transaction per target
   * transaction.
   */
  public long groupsSplit() {
    return groupsSplit.get();
  }

  /**
   * Chunked or partitioned transactions applied through their barrier (also counted as applied).
   */
  public long barriersApplied() {
    return barriersApplied.get();
  }

  /**
   * Chunks this applier staged in the target (replays and chunks of applied transactions excluded).
   */
  public long chunksStaged() {
    return chunksStaged.get();
  }

  /** Vacuums of trellara_sink.staged_chunks this applier ran between its transactions. */
  public long stagingVacuums() {
    return stagingVacuums.get();
  }

  /** Transactions set aside, not staged: their flow was past staging.flow.max.bytes. */
  public long transactionsSetAside() {
    return transactionsSetAside.get();
  }

  public long barrierLooks() {
    return barrierLooks.get();
  }

  public long stagingWakeups() {
    return stagingWakeups.get();
  }

  /** Encoded bytes of the chunks this applier staged. */
  public long stagedBytes() {
    return stagedBytes.get();
  }

  @Override
  public String toString() {
    return "ApplyMetrics[applied="
        + transactionsApplied
        + " duplicates="
        + duplicatesSkipped
        + " commits="
        + targetCommits
        + " inserted="
        + rowsInserted
        + " updated="
        + rowsUpdated
        + " deleted="
        + rowsDeleted
        + " truncates="
        + truncates
        + " ddlReplayed="
        + ddlReplayed
        + " ddlSkipped="
        + ddlSkipped
        + " missingRowsIgnored="
        + missingRowsIgnored
        + " retries="
        + retries
        + " groupsSplit="
        + groupsSplit
        + " barriers="
        + barriersApplied
        + " chunksStaged="
        + chunksStaged
        + " stagedBytes="
        + stagedBytes
        + "]";
  }

  /** Barriers applied outside the target (reassembled whole in memory and applied as envelopes). */
  public void countBarriers(long n) {
    barriersApplied.addAndGet(n);
  }

  public void countRetry() {
    retries.incrementAndGet();
  }
}
