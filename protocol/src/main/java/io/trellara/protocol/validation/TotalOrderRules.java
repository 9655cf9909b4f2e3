package io.trellara.protocol.validation;

import static io.trellara.protocol.validation.ProtocolRule.DUPLICATE_TOTAL_ORDER;
import static io.trellara.protocol.validation.ProtocolRule.TOTAL_ORDER_GAP;
import static io.trellara.protocol.validation.ProtocolRule.TOTAL_ORDER_NOT_ASCENDING;
import static io.trellara.protocol.validation.ProtocolRule.TOTAL_ORDER_ZERO;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.validation.EventRules.Field;
import io.trellara.protocol.validation.ProtocolValidator.Identity;
import java.util.Arrays;
import java.util.List;

/**
 * The total_order rules of one envelope or chunk: 1-based, ascending within each list, unique
 * across both, and (an envelope) exactly 1..N.
 */
final class TotalOrderRules {
  private TotalOrderRules() {}

  /** Zero and descending orders of one list; true when {@code order} does not descend. */
  static boolean totalOrder(
      Identity id, Field f, long order, long previous, boolean first, Violations v) {
    if (order == 0) {
      v.report(TOTAL_ORDER_ZERO, f.at(".total_order"), id.txKey(), "total_order is 0");
    }
    if (!first && Long.compareUnsigned(order, previous) < 0) {
      v.report(
          TOTAL_ORDER_NOT_ASCENDING,
          f.at(".total_order"),
          id.eventKey(order),
          "total_order "
              + Long.toUnsignedString(order)
              + " follows "
              + Long.toUnsignedString(previous));
      return false;
    }
    return true;
  }

  /**
   * A non-zero total_order used twice, within a list or across; true when none is. Both lists
   * ascending, one merge pass finds it.
   */
  static boolean noRepeat(
      Identity id,
      List<ChangeRecord> changes,
      List<DdlEvent> ddl,
      boolean ascending,
      Violations v) {
    if (!ascending) {
      return noRepeatUnsorted(id, changes, ddl, v);
    }
    boolean unique = true;
    int i = 0;
    int j = 0;
    long previous = 0;
    while (i < changes.size() || j < ddl.size()) {
      boolean change =
          j >= ddl.size()
              || (i < changes.size()
                  && Long.compareUnsigned(
                          changes.get(i).getTotalOrder(), ddl.get(j).getTotalOrder())
                      <= 0);
      long order = change ? changes.get(i).getTotalOrder() : ddl.get(j).getTotalOrder();
      if (order != 0 && order == previous) {
        unique = false;
        v.report(
            DUPLICATE_TOTAL_ORDER,
            (change ? "changes[" + i : "ddl_events[" + j) + "].total_order",
            id.eventKey(order),
            "total_order " + Long.toUnsignedString(order) + " is used by two events");
      }
      previous = order;
      if (change) {
        i++;
      } else {
        j++;
      }
    }
    return unique;
  }

  /** The failure path's form of {@link #noRepeat}, for lists already found out of order. */
  private static boolean noRepeatUnsorted(
      Identity id, List<ChangeRecord> changes, List<DdlEvent> ddl, Violations v) {
    long[] orders = new long[changes.size() + ddl.size()];
    int n = 0;
    for (ChangeRecord c : changes) {
      orders[n++] = c.getTotalOrder();
    }
    for (DdlEvent d : ddl) {
      orders[n++] = d.getTotalOrder();
    }
    // signed order groups equal values just as well as unsigned order does
    Arrays.sort(orders);
    boolean unique = true;
    for (int k = 1; k < orders.length; k++) {
      if (orders[k] != 0 && orders[k] == orders[k - 1]) {
        unique = false;
        v.report(
            DUPLICATE_TOTAL_ORDER,
            "total_order",
            id.eventKey(orders[k]),
            "total_order " + Long.toUnsignedString(orders[k]) + " is used by two events");
      }
    }
    return unique;
  }

  /**
   * Non-zero, ascending and unique: the highest equals the count exactly when nothing is missing.
   * Judged only on such orders (a zero, a descent or a repeat is already the message's fault).
   */
  static void noGap(
      Identity id, List<ChangeRecord> changes, List<DdlEvent> ddl, long events, Violations v) {
    long max = 0;
    for (ChangeRecord c : changes) {
      max = Long.compareUnsigned(c.getTotalOrder(), max) > 0 ? c.getTotalOrder() : max;
    }
    for (DdlEvent d : ddl) {
      max = Long.compareUnsigned(d.getTotalOrder(), max) > 0 ? d.getTotalOrder() : max;
    }
    if (max != events) {
      v.report(
          TOTAL_ORDER_GAP,
          "changes",
          id.txKey(),
          events + " events but the highest total_order is " + Long.toUnsignedString(max));
    }
  }
}
