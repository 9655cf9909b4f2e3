package io.trellara.source.startup;

import io.trellara.protocol.Lsn;
import io.trellara.source.kafka.SourcePosition;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A source offset as Kafka Connect stores it, read into what it says: no position, a snapshot that
 * was running when it was written, or the position after a published transaction. Every map this
 * source writes has its keys in one fixed order (their order decides nothing when Connect reads an
 * offset back, but the bytes in the offsets topic stay the same from run to run), and none is ever
 * null: Connect takes a null offset for a tombstone and deletes the stored one.
 */
public sealed interface StoredOffset {

  /** Nothing stored (or an offset without a position: {@link SourceOffsets#NO_POSITION}). */
  record None() implements StoredOffset {
    @Override
    public Map<String, Object> toMap() {
      return SourceOffsets.NO_POSITION;
    }

    @Override
    public String describe() {
      return "none";
    }
  }

  /**
   * The records of a snapshot before its commit marker carry this.
   *
   * @param consistentPoint the snapshot's consistent point (its commit LSN); 0 when written by a
   *     version that did not record it
   */
  record Running(long consistentPoint) implements StoredOffset {
    @Override
    public Map<String, Object> toMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put(SourceOffsets.SNAPSHOT, SourceOffsets.RUNNING);
      if (consistentPoint != 0) {
        m.put(SourceOffsets.SNAPSHOT_LSN, Lsn.format(consistentPoint));
      }
      return java.util.Collections.unmodifiableMap(m);
    }

    @Override
    public String describe() {
      return "a snapshot running"
          + (consistentPoint == 0 ? "" : " at consistent point " + Lsn.format(consistentPoint));
    }
  }

  /** The position after a published transaction. */
  record At(SourcePosition position) implements StoredOffset {
    @Override
    public Map<String, Object> toMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put(SourceOffsets.COMMIT_LSN, position.commitLsn());
      m.put(SourceOffsets.END_LSN, position.endLsn());
      m.put(SourceOffsets.TRANSACTION_ID, position.transactionId());
      if (position.systemId() != null) {
        m.put(SourceOffsets.SYSTEM_ID, position.systemId());
      }
      if (position.timeline() != null) {
        m.put(SourceOffsets.TIMELINE, position.timeline());
      }
      return java.util.Collections.unmodifiableMap(m);
    }

    @Override
    public String describe() {
      return position.describe();
    }
  }

  /** The map Connect stores; never null. */
  Map<String, Object> toMap();

  /** For log lines. */
  String describe();

  /**
   * What {@code offset} says. An end LSN makes it a position; {@code snapshot=running} a snapshot
   * that did not finish (it wins over an end LSN, as it always did); anything else no position.
   */
  static StoredOffset of(Map<String, ?> offset) {
    if (offset == null) {
      return new None();
    }
    if (SourceOffsets.RUNNING.equals(String.valueOf(offset.get(SourceOffsets.SNAPSHOT)))) {
      Object at = offset.get(SourceOffsets.SNAPSHOT_LSN);
      Lsn lsn = at == null ? null : Lsn.parseOrNull(at.toString());
      return new Running(lsn == null ? 0 : lsn.value());
    }
    if (!(offset.get(SourceOffsets.END_LSN) instanceof Number end)) {
      return new None();
    }
    Object commit = offset.get(SourceOffsets.COMMIT_LSN);
    Object xid = offset.get(SourceOffsets.TRANSACTION_ID);
    Object system = offset.get(SourceOffsets.SYSTEM_ID);
    Object timeline = offset.get(SourceOffsets.TIMELINE);
    return new At(
        new SourcePosition(
            commit == null ? Lsn.format(end.longValue()) : commit.toString(),
            end.longValue(),
            xid == null ? "" : xid.toString(),
            system == null || system.toString().isBlank() ? null : system.toString(),
            timeline instanceof Number n ? n.longValue() : null));
  }
}
