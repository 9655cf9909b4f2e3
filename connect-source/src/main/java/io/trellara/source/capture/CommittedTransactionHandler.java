package io.trellara.source.capture;

/** Receives committed transactions from the {@link TransactionAssembler}, in commit order. */
public interface CommittedTransactionHandler {

  /**
   * A committed transaction with at least one event. The transaction (and its spill file) is valid
   * only during this call: iterate it here (as often as needed) and keep only what you built from
   * it.
   */
  void onCommitted(CapturedTransaction transaction);

  /**
   * A committed transaction with no captured event (nothing of it is published, or every change was
   * in a rolled-back subtransaction). Nothing to publish, but its end LSN may be confirmed once
   * everything before it is: useful for slot progress. Default: ignored.
   */
  default void onEmptyCommit(long xid, long commitLsn, long endLsn) {}
}
