package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.row;
import static io.trellara.sink.postgres.Tx.val;

import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.TransactionEnvelope;

/**
 * Well-formed, validly checksummed transactions a topic writer could craft, for the ITs (public):
 * the sink must refuse or neutralise each by its own rules, since the checksum proves integrity,
 * not authorship.
 */
public final class CraftedRecords {
  private CraftedRecords() {}

  /** A transaction carrying only a DDL event with {@code statement} as its text. */
  public static TransactionEnvelope ddl(
      String sourceId, long commitLsn, String txId, String statement, String objectIdentity) {
    return Tx.tx(sourceId, commitLsn, txId).ddl(statement, objectIdentity).build();
  }

  /**
   * An update whose before image flags {@code column} (not the primary key) as the key, setting it
   * to {@code to}: matched on what the record chose, it would rewrite every row holding {@code
   * from}.
   */
  public static TransactionEnvelope updateKeyedBy(
      String sourceId,
      long commitLsn,
      String txId,
      RelationId relation,
      String column,
      String type,
      String from,
      String to) {
    return Tx.tx(sourceId, commitLsn, txId)
        .update(relation, row(key(column, type, from)), val(column, type, to))
        .build();
  }
}
