package io.trellara.protocol;

/**
 * The initial snapshot on the wire: one transaction of inserts, committed at the replication slot's
 * consistent point (the LSN where streaming continues), whose transaction_id is {@value
 * #TRANSACTION_ID} instead of an xid. Its identity (source, that LSN, {@value #TRANSACTION_ID}) is
 * unique: a later snapshot of the same source has a later consistent point. Its commit LSN may be
 * shared: a streamed transaction whose commit record starts exactly at the consistent point commits
 * at the same LSN, and orders after the snapshot.
 */
public final class Snapshots {
  public static final String TRANSACTION_ID = "snapshot";

  private Snapshots() {}

  public static boolean isSnapshot(String transactionId) {
    return TRANSACTION_ID.equals(transactionId);
  }
}
