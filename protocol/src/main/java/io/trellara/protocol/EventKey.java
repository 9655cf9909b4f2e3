package io.trellara.protocol;

/**
 * The canonical ordered event key {@code {source_id}:{commit_lsn}:{transaction_id}:{total_order}}; also
 * the idempotency key every change record carries.
 */
public final class EventKey {
    private EventKey() {
    }

    public static String of(String sourceId, String commitLsn, String transactionId, long totalOrder) {
        return prefix(sourceId, commitLsn, transactionId) + Long.toUnsignedString(totalOrder);
    }

    /** The part shared by every event of one transaction; build it once per transaction. */
    public static String prefix(String sourceId, String commitLsn, String transactionId) {
        return sourceId + ':' + commitLsn + ':' + transactionId + ':';
    }

    private static final long MAX_DIV_10 = Long.divideUnsigned(-1L, 10);
    private static final long MAX_LAST_DIGIT = Long.remainderUnsigned(-1L, 10);

    /**
     * Checks {@code key} equals {@code prefix + Long.toUnsignedString(totalOrder)} without allocating: only
     * the canonical decimal form matches (no sign, no leading zero, nothing above 2^64-1, which would
     * otherwise wrap onto a small order).
     */
    public static boolean matches(String key, String prefix, long totalOrder) {
        if (!key.startsWith(prefix)) {
            return false;
        }
        int digits = key.length() - prefix.length();
        if (digits <= 0 || digits > 20) {
            return false;
        }
        long v = 0;
        for (int i = prefix.length(); i < key.length(); i++) {
            int d = key.charAt(i) - '0';
            if (d < 0 || d > 9) {
                return false;
            }
            int cmp = Long.compareUnsigned(v, MAX_DIV_10);
            if (cmp > 0 || (cmp == 0 && d > MAX_LAST_DIGIT)) {
                return false;
            }
            v = v * 10 + d;
        }
        return v == totalOrder && (digits == 1 || key.charAt(prefix.length()) != '0');
    }
}
