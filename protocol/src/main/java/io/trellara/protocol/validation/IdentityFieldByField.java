package io.trellara.protocol.validation;

import static io.trellara.protocol.validation.ProtocolRule.COMMIT_LSN_NOT_CANONICAL;
import static io.trellara.protocol.validation.ProtocolRule.TRANSACTION_ID_NOT_DECIMAL;
import static io.trellara.protocol.validation.ProtocolRule.UNKNOWN_PROTOCOL_VERSION;

import io.trellara.protocol.Lsn;
import io.trellara.protocol.ProtocolVersion;
import io.trellara.protocol.validation.ProtocolValidator.Identity;

/**
 * {@link Misreading#IDENTITY_FIELD_BY_FIELD}: the identity rules judged field by field (each
 * field's form right after its blank check), the order an earlier validator used.
 */
final class IdentityFieldByField {
  private IdentityFieldByField() {}

  static int identity(int version, Identity id, long timestampMs, String lsnPrefix, Violations v) {
    if (version != ProtocolVersion.CURRENT) {
      v.report(UNKNOWN_PROTOCOL_VERSION, "protocol_version", id.txKey(), "misread");
    }
    boolean source = ProtocolValidator.required(id.sourceId(), "source_id", id, v);
    ProtocolValidator.required(id.databaseId(), "database_id", id, v);
    ProtocolValidator.required(id.datasetId(), "dataset_id", id, v);
    boolean tx = ProtocolValidator.required(id.transactionId(), "transaction_id", id, v);
    if (tx && !ProtocolValidator.transactionIdForm(id.transactionId())) {
      tx = false;
      v.report(TRANSACTION_ID_NOT_DECIMAL, "transaction_id", id.txKey(), "misread");
    }
    String lsnField = lsnPrefix + "commit_lsn";
    boolean lsn = ProtocolValidator.required(id.commitLsn(), lsnField, id, v);
    if (lsn && !Lsn.isCanonical(id.commitLsn())) {
      lsn = false;
      v.report(COMMIT_LSN_NOT_CANONICAL, lsnField, id.txKey(), "misread");
    }
    ProtocolValidator.commitLsnZero(id, lsnField, !lsn, v);
    ProtocolValidator.timestamp(timestampMs, lsnPrefix, id, v);
    return (tx ? ProtocolValidator.TRANSACTION_ID_SOUND : 0)
        | (tx && lsn && source ? ProtocolValidator.KEY_SOUND : 0);
  }
}
