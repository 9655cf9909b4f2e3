package io.trellara.protocol;

/**
 * The initial snapshot on the wire: one transaction of inserts, committed at the replication slot's consistent
 * point (the LSN where streaming continues), whose transaction_id is {@value #TRANSACTION_ID} instead of an xid.
 * Its identity (source, that LSN, {@value #TRANSACTION_ID}) is unique: no streamed transaction commits at the
 * consistent point, and a later snapshot of the same source has a later one.
 */
public final class Snapshots {
    public static final String TRANSACTION_ID = "snapshot";

    private Snapshots() {
    }

    public static boolean isSnapshot(String transactionId) {
        return TRANSACTION_ID.equals(transactionId);
    }
}
