package io.trellara.protocol;

/**
 * The canonical ordered event key {@code {source_id}:{commit_lsn}:{transaction_id}:{total_order}};
 * also the idempotency key every change record carries.
 */
public final class EventKey {
  private EventKey() {}

  public static String of(
      String sourceId, String commitLsn, String transactionId, long totalOrder) {
    return prefix(sourceId, commitLsn, transactionId) + Long.toUnsignedString(totalOrder);
  }

  /** The part shared by every event of one transaction; build it once per transaction. */
  public static String prefix(String sourceId, String commitLsn, String transactionId) {
    return sourceId + ':' + commitLsn + ':' + transactionId + ':';
  }

  /**
   * The transaction's display key {@code {source_id}:{commit_lsn}:{transaction_id}}: an event key
   * without its total_order, what errors and logs name when no single event is at fault. The one
   * place it is built.
   */
  public static String transaction(String sourceId, String commitLsn, String transactionId) {
    return sourceId + ':' + commitLsn + ':' + transactionId;
  }

  private static final long MAX_DIV_10 = Long.divideUnsigned(-1L, 10);
  private static final long MAX_LAST_DIGIT = Long.remainderUnsigned(-1L, 10);

  /**
   * Checks {@code key} equals {@code prefix + Long.toUnsignedString(totalOrder)} without
   * allocating: only the canonical decimal form matches (no sign, no leading zero, nothing above
   * 2^64-1, which would otherwise wrap onto a small order).
   */
  public static boolean matches(String key, String prefix, long totalOrder) {
    return key.startsWith(prefix) && unsignedDecimal(key, prefix.length(), totalOrder, true);
  }

  /**
   * True when {@code text} is the canonical unsigned decimal form of a 64-bit value (what {@link
   * Long#toUnsignedString(long)} prints): 1 to 20 ASCII digits, no sign, no leading zero, at most
   * 2^64-1. The form of transaction_id (the xid) as of the total_order ending an event key.
   */
  public static boolean isUnsignedDecimal(String text) {
    return unsignedDecimal(text, 0, 0, false);
  }

  /**
   * Whether {@code text} from {@code from} on is canonical unsigned decimal (and, if asked, of
   * {@code value}).
   */
  private static boolean unsignedDecimal(String text, int from, long value, boolean mustEqual) {
    int digits = text.length() - from;
    if (digits <= 0 || digits > 20 || (digits > 1 && text.charAt(from) == '0')) {
      return false;
    }
    long v = 0;
    for (int i = from; i < text.length(); i++) {
      int d = text.charAt(i) - '0';
      if (d < 0 || d > 9) {
        return false;
      }
      int cmp = Long.compareUnsigned(v, MAX_DIV_10);
      if (cmp > 0 || (cmp == 0 && d > MAX_LAST_DIGIT)) {
        return false;
      }
      v = v * 10 + d;
    }
    return !mustEqual || v == value;
  }
}
