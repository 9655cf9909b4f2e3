package io.trellara.protocol.validation;

import static io.trellara.protocol.validation.ProtocolRule.*;

import io.trellara.protocol.EventKey;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.RowImage;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.validation.ProtocolValidator.Identity;
import java.util.List;

/**
 * The rules of the events an envelope or a chunk carries, in docs/protocol.md's order: its schema
 * versions ({@link SchemaVersionRules}), each change in list order (the rules every event shares,
 * then {@link ChangeRules}), each DDL event, then the total orders across both lists ({@link
 * TotalOrderRules}). Allocation-free per change on the success path; each schema version is checked
 * once.
 */
final class EventRules {
  private EventRules() {}

  /**
   * Names a list element only when an error needs it: building "changes[123].after" for every
   * change on the success path would allocate several strings per change.
   */
  record Field(String list, int index) {
    String at(String suffix) {
      return list + "[" + index + "]" + suffix;
    }
  }

  /**
   * Every {@code ColumnValue.text} is UTF-8: the last check of the bytes (step 1), made after
   * parsing because the IDL turns the parser's own check off for this field, and before any rule of
   * the message, as a parser that checks it itself would. False (one MALFORMED_BYTES) when one is
   * not.
   */
  static boolean textsAreUtf8(Identity id, List<ChangeRecord> changes, Violations v) {
    if (Misreading.on(Misreading.TEXT_UTF8_IN_STEP_2)) {
      return true;
    }
    for (int i = 0; i < changes.size(); i++) {
      ChangeRecord c = changes.get(i);
      String bad = c.hasBefore() ? notUtf8(c.getBefore(), ".before") : null;
      bad = bad == null && c.hasAfter() ? notUtf8(c.getAfter(), ".after") : bad;
      if (bad != null) {
        v.report(
            MALFORMED_BYTES,
            "changes[" + i + "]" + bad,
            id.eventKey(c.getTotalOrder()),
            "a column's text is not valid UTF-8");
        return false;
      }
    }
    return true;
  }

  private static String notUtf8(RowImage image, String name) {
    for (int k = 0; k < image.getColumnsCount(); k++) {
      ColumnValue column = image.getColumns(k);
      if (!column.getTextBytes().isValidUtf8()) {
        return name + ".columns[" + k + "].text";
      }
    }
    return null;
  }

  /**
   * Checks the events of one envelope or chunk: {@code strict} in strict transaction order or
   * strict chunked order, where partition_order is 0; {@code envelope} for the envelope's own count
   * rules (EMPTY_BARRIER, TOTAL_ORDER_GAP); a chunk's EMPTY_BARRIER is its caller's. {@code
   * identity} says which of the message's identity fields passed their rules ({@link
   * ProtocolValidator#TRANSACTION_ID_SOUND}, {@link ProtocolValidator#KEY_SOUND}): an event is
   * compared only with fields that did.
   */
  static void check(
      Identity id,
      int identity,
      List<ChangeRecord> changes,
      List<DdlEvent> ddl,
      List<SchemaVersion> schemas,
      boolean strict,
      boolean envelope,
      Violations v) {
    if (Misreading.on(Misreading.EVENTS_COMPARED_WITH_BROKEN_IDENTITY)) {
      identity = ProtocolValidator.TRANSACTION_ID_SOUND | ProtocolValidator.KEY_SOUND;
    }
    boolean txSound = (identity & ProtocolValidator.TRANSACTION_ID_SOUND) != 0;
    boolean keySound = (identity & ProtocolValidator.KEY_SOUND) != 0;
    SchemaVersionRules.check(id, schemas, v);
    ChangeRules.Versions versions = new ChangeRules.Versions(schemas);
    String keyPrefix = EventKey.prefix(id.sourceId(), id.commitLsn(), id.transactionId());
    boolean ascending = true;
    boolean zero = false;
    long previous = 0;
    for (int i = 0; i < changes.size(); i++) {
      ChangeRecord c = changes.get(i);
      Field f = new Field("changes", i);
      long order = c.getTotalOrder();
      zero |= order == 0;
      ascending &= TotalOrderRules.totalOrder(id, f, order, previous, i == 0, v);
      previous = order;
      if (txSound && !c.getTransactionId().equals(id.transactionId())) {
        v.report(
            TRANSACTION_ID_MISMATCH,
            f.at(".transaction_id"),
            id.eventKey(order),
            "'" + c.getTransactionId() + "' != '" + id.transactionId() + "'");
      }
      if (Blank.isBlank(c.getIdempotencyKey())) {
        v.report(
            IDEMPOTENCY_KEY_BLANK,
            f.at(".idempotency_key"),
            id.eventKey(order),
            "idempotency_key is blank");
      } else if (keySound && !EventKey.matches(c.getIdempotencyKey(), keyPrefix, order)) {
        v.report(
            IDEMPOTENCY_KEY_MISMATCH,
            f.at(".idempotency_key"),
            id.eventKey(order),
            "'" + c.getIdempotencyKey() + "'");
      }
      if (c.getTableOrder() == 0) {
        v.report(TABLE_ORDER_ZERO, f.at(".table_order"), id.eventKey(order), "table_order is 0");
      }
      if (strict && c.getPartitionOrder() != 0) {
        v.report(
            PARTITION_ORDER_IN_STRICT_MODE,
            f.at(".partition_order"),
            id.eventKey(order),
            "partition_order "
                + Long.toUnsignedString(c.getPartitionOrder())
                + " in a strict boundary");
      }
      ChangeRules.check(id, c, f, versions, v);
    }
    previous = 0;
    for (int i = 0; i < ddl.size(); i++) {
      DdlEvent d = ddl.get(i);
      Field f = new Field("ddl_events", i);
      long order = d.getTotalOrder();
      zero |= order == 0;
      ascending &= TotalOrderRules.totalOrder(id, f, order, previous, i == 0, v);
      previous = order;
      if (txSound && !d.getTransactionId().equals(id.transactionId())) {
        v.report(
            TRANSACTION_ID_MISMATCH,
            f.at(".transaction_id"),
            id.eventKey(order),
            "'" + d.getTransactionId() + "' != '" + id.transactionId() + "'");
      }
      if (Blank.isBlank(d.getCommandTag())) {
        v.report(
            DDL_COMMAND_TAG_BLANK,
            f.at(".command_tag"),
            id.eventKey(order),
            "command_tag is blank");
      }
    }
    boolean unique = TotalOrderRules.noRepeat(id, changes, ddl, ascending, v);
    if (!envelope) {
      return;
    }
    long events = (long) changes.size() + ddl.size();
    if (events == 0) {
      v.report(
          EMPTY_BARRIER, "changes", id.txKey(), "the envelope carries no change and no DDL event");
    } else if ((ascending && unique && !zero)
        || Misreading.on(Misreading.GAP_JUDGED_WITH_BROKEN_ORDERS)) {
      TotalOrderRules.noGap(id, changes, ddl, events, v);
    }
  }
}
