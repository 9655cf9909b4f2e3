package io.trellara.protocol;

import java.util.Objects;

/**
 * Identity of one source transaction: deduplication is by (source_id, commit_lsn, transaction_id).
 * database_id participates in the display form only, never in equality.
 */
public record TransactionBoundaryKey(
    String sourceId, String databaseId, String commitLsn, String transactionId) {

  public TransactionBoundaryKey {
    Objects.requireNonNull(sourceId, "sourceId");
    Objects.requireNonNull(databaseId, "databaseId");
    Objects.requireNonNull(commitLsn, "commitLsn");
    Objects.requireNonNull(transactionId, "transactionId");
  }

  /**
   * {@code {source_id}/{database_id}:{commit_lsn}:{transaction_id}}, the Kafka record key of every
   * message.
   */
  public String display() {
    return sourceId + '/' + databaseId + ':' + commitLsn + ':' + transactionId;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TransactionBoundaryKey k
        && k.sourceId.equals(sourceId)
        && k.commitLsn.equals(commitLsn)
        && k.transactionId.equals(transactionId);
  }

  @Override
  public int hashCode() {
    return Objects.hash(sourceId, commitLsn, transactionId);
  }

  @Override
  public String toString() {
    return display();
  }
}
