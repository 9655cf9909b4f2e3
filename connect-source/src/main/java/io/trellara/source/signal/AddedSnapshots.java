package io.trellara.source.signal;

import io.trellara.protocol.LogText;
import io.trellara.protocol.Lsn;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How {@link OnlineSnapshots} takes tables added to capture: into the snapshot already waiting for
 * its consistent point when there is one (that point is after the tables joined, so their rows at
 * it are complete), and never cancelled by {@code stop-snapshot} (the table would then stream
 * without its existing rows).
 */
final class AddedSnapshots {
  private static final Logger LOG = LoggerFactory.getLogger(AddedSnapshots.class);

  static final String UNSTOPPABLE =
      "the waiting snapshot loads tables just added to capture (table.include.list), which would"
          + " otherwise stream without their existing rows; it cannot be stopped";

  private AddedSnapshots() {}

  /** The waiting snapshot's signal with the added tables it does not name yet. */
  static Signal merged(Signal waiting, Signal added) {
    List<Signal.TableRequest> tables = new ArrayList<>(waiting.tables());
    for (Signal.TableRequest t : added.tables()) {
      if (tables.stream().noneMatch(x -> x.display().equals(t.display()))) {
        tables.add(t);
      }
    }
    return new Signal(waiting.id(), waiting.action(), tables);
  }

  /** {@code before} and the tables {@code added} names, as schema.table. */
  static Set<String> names(Set<String> before, Signal added) {
    Set<String> out = new LinkedHashSet<>(before);
    for (Signal.TableRequest t : added.tables()) {
      out.add(t.display());
    }
    return Set.copyOf(out);
  }

  static void joined(Signal added, Signal now, long point) {
    LOG.info(
        "Signal {}: the tables added to capture ({}) join the snapshot of signal {} waiting for"
            + " consistent point {}: {}",
        LogText.escape(added.id()),
        LogText.escape(OnlineSnapshots.describe(added)),
        LogText.escape(now.id()),
        Lsn.format(point),
        LogText.escape(OnlineSnapshots.describe(now)));
  }
}
