package io.trellara.quickstart;

import java.util.List;

/**
 * What the verifier found: every table compared, the transaction counts on each side and the size
 * of the largest applied transaction (the large order must arrive whole, as one target
 * transaction).
 *
 * @param connectorFailure null while both connectors ran; otherwise which one failed
 * @param timedOutAfterSeconds the wait when the deadline passed, -1 when it did not
 */
record Verification(
    List<TableCheck> tables,
    Progress progress,
    long expectedTransactions,
    long largestChangeCount,
    int largeTransactionLines,
    String connectorFailure,
    int timedOutAfterSeconds) {

  /** One table: row counts and md5 of all rows in key order on each side. */
  record TableCheck(
      String table, long sourceRows, long targetRows, String sourceMd5, String targetMd5) {
    boolean equal() {
      return sourceRows == targetRows && sourceMd5.equals(targetMd5);
    }
  }

  /** Every source transaction on the topic and applied, no more. */
  boolean transactionsEqual() {
    return progress.applied() == expectedTransactions && progress.applied() == progress.captured();
  }

  boolean largeTransactionWhole() {
    return largestChangeCount >= largeTransactionLines;
  }

  boolean pass() {
    return tables.stream().allMatch(TableCheck::equal)
        && transactionsEqual()
        && largeTransactionWhole();
  }
}
