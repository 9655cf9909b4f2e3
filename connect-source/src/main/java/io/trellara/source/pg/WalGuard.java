package io.trellara.source.pg;

/**
 * What keeps a slot's retained WAL in view: {@code slotLagWarnBytes}, above which the lag sampler
 * warns (0: never), and {@code heartbeatActionQuery}, a statement of the operator's own (from the
 * connector configuration, never from the stream) that the heartbeat runs at each beat, for a
 * database whose captured tables are idle while others are busy, or where the connector's role may
 * not call {@code pg_logical_emit_message} ("" for none).
 */
public record WalGuard(long slotLagWarnBytes, String heartbeatActionQuery) {
  /** slot.lag.warn.bytes's default: 1 GiB of WAL retained for the slot. */
  public static final long DEFAULT_SLOT_LAG_WARN_BYTES = 1L << 30;

  public static final WalGuard DEFAULT = new WalGuard(DEFAULT_SLOT_LAG_WARN_BYTES, "");

  public WalGuard {
    if (slotLagWarnBytes < 0) {
      throw new IllegalArgumentException("slotLagWarnBytes " + slotLagWarnBytes);
    }
    heartbeatActionQuery = heartbeatActionQuery == null ? "" : heartbeatActionQuery.strip();
  }

  public boolean hasAction() {
    return !heartbeatActionQuery.isEmpty();
  }
}
