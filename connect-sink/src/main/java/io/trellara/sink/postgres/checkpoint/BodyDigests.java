package io.trellara.sink.postgres.checkpoint;

import io.trellara.protocol.EventKey;
import io.trellara.protocol.LogText;
import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.protocol.codec.Checksums;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.postgres.session.TargetSession;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;

/**
 * What a dedup record says the applied body was ({@code applied_transactions.body_digest}), so that
 * an identity alone cannot claim a transaction: a topic writer can copy a real transaction's
 * identity into a forged record, but not its body. The digest is the checksum of the message that
 * binds the whole transaction: the envelope's, or for a barrier the manifest's (which binds every
 * chunk by its checksum, and which the commit marker binds in turn), whichever way the barrier was
 * applied (reassembled in memory, staged or streamed). A record whose identity is applied arrives
 * again: the same body is a duplicate, skipped; another body is refused ({@link
 * ApplyException.Reason#DUPLICATE_IDENTITY_CONFLICT}) rather than skipped silently, so whichever of
 * the two came second is neither applied nor lost (the task fails on it, its offset is not
 * committed). A record applied before the column existed has no digest and matches any body.
 */
public final class BodyDigests {
  private BodyDigests() {}

  private static final String DIGESTS =
      """
            SELECT a.body_digest FROM trellara_sink.applied_transactions a
             WHERE a.source_id = ? AND a.dataset_id = ? AND a.commit_lsn = ?::pg_lsn
               AND a.transaction_id = ?""";

  /** The digest of a transaction carried as one envelope with {@code checksum}. */
  public static String envelope(long checksum) {
    return "envelope:" + Checksums.hex(checksum);
  }

  /** The digest of a transaction carried as a barrier whose manifest has {@code checksum}. */
  public static String manifest(long checksum) {
    return "manifest:" + Checksums.hex(checksum);
  }

  /**
   * Throws {@link ApplyException.Reason#DUPLICATE_IDENTITY_CONFLICT} for the first of {@code
   * duplicates} (identities found applied, each with the digest of the body that arrived now) whose
   * recorded digest differs; in the caller's transaction, one query per identity (duplicates are
   * rare: a redelivery after a restart).
   */
  public static void requireSameBodies(TargetSession s, Map<FlowKey, String> duplicates)
      throws SQLException {
    for (Map.Entry<FlowKey, String> d : duplicates.entrySet()) {
      requireSame(d.getKey(), recorded(s, d.getKey()), d.getValue());
    }
  }

  /** The same for two bodies of one identity that arrived together (one batch). */
  public static void requireSame(FlowKey key, String recorded, String arrived) {
    if (recorded != null && !recorded.equals(arrived)) {
      TransactionBoundaryKey k = key.transaction();
      throw new ApplyException(
          ApplyException.Reason.DUPLICATE_IDENTITY_CONFLICT,
          null,
          EventKey.transaction(k.sourceId(), k.commitLsn(), k.transactionId()),
          "transaction identity of dataset '"
              + LogText.escape(key.datasetId())
              + "' is recorded as applied with body "
              + recorded
              + ", and a record of another body ("
              + arrived
              + ") arrived under it: one of the two is forged or from another source history."
              + " Nothing of it is applied; the record stays unconsumed (see docs/security.md)");
    }
  }

  private static String recorded(TargetSession s, FlowKey key) throws SQLException {
    PreparedStatement ps = s.prepare(DIGESTS);
    TransactionBoundaryKey k = key.transaction();
    ps.setString(1, k.sourceId());
    ps.setString(2, key.datasetId());
    ps.setString(3, k.commitLsn());
    ps.setString(4, k.transactionId());
    try (ResultSet rs = ps.executeQuery()) {
      return rs.next() ? rs.getString(1) : null;
    }
  }
}
