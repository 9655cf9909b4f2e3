package io.trellara.source.kafka;

import io.trellara.protocol.Lsn;
import io.trellara.protocol.Snapshots;
import java.util.Objects;

/**
 * Where a transaction the source published ends, and on which server: what a source offset records
 * and what a closing record's offset headers repeat ({@link
 * io.trellara.source.kafka.OffsetHeaders}).
 *
 * @param commitLsn the transaction's commit LSN as on the wire ({@code X/X})
 * @param endLsn the end of its commit record: where the stream resumes (nothing at or before it is
 *     sent again)
 * @param transactionId the xid in decimal, or {@code snapshot} for the initial snapshot
 * @param systemId the server's system identifier; null in offsets of versions before it was
 *     recorded
 * @param timeline the server's timeline; null likewise
 */
public record SourcePosition(
    String commitLsn, long endLsn, String transactionId, String systemId, Long timeline) {

  public SourcePosition {
    Objects.requireNonNull(commitLsn, "commitLsn");
    Objects.requireNonNull(transactionId, "transactionId");
  }

  /** The closing record of the initial snapshot (its commit marker, at the consistent point). */
  public boolean isSnapshot() {
    return Snapshots.isSnapshot(transactionId);
  }

  /** The commit LSN as a number; 0 when it does not parse (never for offsets this source wrote). */
  public long commitLsnValue() {
    Lsn lsn = Lsn.parseOrNull(commitLsn);
    return lsn == null ? 0 : lsn.value();
  }

  /** Written against the server of {@code systemId} (unknown counts as not). */
  public boolean onSystem(String otherSystemId) {
    return systemId != null && systemId.equals(otherSystemId);
  }

  /** For log lines: {@code transaction 771 committed at 0/16B3748 (end LSN 0/16B3790, ...)}. */
  public String describe() {
    return (isSnapshot()
            ? "the snapshot at " + commitLsn
            : "transaction " + transactionId + " committed at " + commitLsn)
        + " (end LSN "
        + Lsn.format(endLsn)
        + (systemId == null ? "" : ", system identifier " + systemId + ", timeline " + timeline)
        + ")";
  }
}
