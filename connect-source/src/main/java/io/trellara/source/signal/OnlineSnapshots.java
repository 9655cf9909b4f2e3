package io.trellara.source.signal;

import io.trellara.protocol.LogText;
import io.trellara.protocol.Lsn;
import io.trellara.source.pg.PgNames;
import io.trellara.source.replication.BarrierPipeline;
import io.trellara.source.replication.Outbound;
import io.trellara.source.replication.SourceSettings;
import io.trellara.source.replication.StrictPipeline;
import io.trellara.source.snapshot.ExportedSnapshot;
import io.trellara.source.snapshot.OnlineSnapshotProgress;
import io.trellara.source.snapshot.SnapshotEvents;
import io.trellara.source.snapshot.SnapshotReader;
import io.trellara.source.snapshot.SnapshotTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out the signals the stream delivers, on the capture thread. A {@code snapshot} signal
 * re-snapshots the tables it names while the stream goes on for the others:
 *
 * <ol>
 *   <li>when the signal's transaction has been handed on, a temporary slot is created with an
 *       exported snapshot ({@code CREATE_REPLICATION_SLOT ... TEMPORARY LOGICAL pgoutput}): the
 *       database as of its consistent point P, where every transaction committing before P is in
 *       the snapshot and none committing at or after P is (the initial snapshot's argument);
 *   <li>a non-transactional logical message (the watermark) is written after it, so the stream is
 *       sure to pass P even when nothing else commits;
 *   <li>the stream goes on; transactions committing before P are published as usual (the snapshot
 *       supersedes what they did to the named tables);
 *   <li>before the first transaction committing at or after P is published (or at the watermark,
 *       whichever comes first) the named tables are read in that snapshot and published as one
 *       snapshot transaction committed at P, the way the initial snapshot is published, so the sink
 *       replaces those tables in one target transaction: readers see the old contents, then the new
 *       ones, all at once. Every later change to them is ordered after it.
 * </ol>
 *
 * <p>The read is one pass on the capture thread: the stream waits meanwhile (the chunked reads of
 * the DBLog method, which would let it go on, are not built). {@code stop-snapshot} cancels a
 * snapshot that is waiting for P; {@code pause-snapshot} and {@code resume-snapshot} are refused
 * with the reason, since a snapshot read in one pass has nothing to pause.
 */
final class OnlineSnapshots implements AutoCloseable, AddedTables.Pending {
  private static final Logger LOG = LoggerFactory.getLogger(OnlineSnapshots.class);

  /** The prefix of the watermark message written after a snapshot's slot is created. */
  static final String WATERMARK_PREFIX = "trellara.signal.watermark";

  static final String SLOT_SUFFIX = "_resnap";

  private final SourceSettings settings;
  private final Sequencer sequencer;
  private final Function<Consumer<Outbound>, BarrierPipeline> pipelines;
  private final java.util.function.BooleanSupplier running;
  private final OnlineSnapshotProgress progress;
  private Pending pending;

  /**
   * {@code added}: the tables (schema.table) loaded as tables added to capture ({@link
   * AddedTables}).
   */
  private record Pending(Signal signal, ExportedSnapshot exported, java.util.Set<String> added) {}

  OnlineSnapshots(
      SourceSettings settings,
      Sequencer sequencer,
      java.util.function.BooleanSupplier running,
      OnlineSnapshotProgress progress) {
    this.progress = progress;
    this.settings = settings;
    this.sequencer = sequencer;
    this.pipelines = StrictPipeline.snapshotFactory(settings);
    this.running = running;
  }

  /** No snapshot waits for its consistent point (so the stream's position may be confirmed). */
  boolean idle() {
    return pending == null;
  }

  /** A signal whose transaction committed (and was handed on) at {@code commitLsn}. */
  void signal(Signal s, long commitLsn) {
    String id = LogText.escape(s.id());
    switch (s.action()) {
      case SNAPSHOT -> prepare(s, id, commitLsn);
      case STOP_SNAPSHOT -> {
        if (pending != null && !pending.added().isEmpty()) {
          refuse(id, s, AddedSnapshots.UNSTOPPABLE);
        } else if (pending == null) {
          refuse(
              id,
              s,
              "no online snapshot is in progress: a snapshot is read in one pass, so one that began"
                  + " is complete before a later signal is read");
        } else {
          LOG.info(
              "Signal {}: stop-snapshot: the snapshot of signal {} waiting for consistent point {}"
                  + " is cancelled; nothing of it was published",
              id,
              LogText.escape(pending.signal().id()),
              Lsn.format(pending.exported().consistentPoint()));
          cancel("stop-snapshot signal " + id);
        }
      }
      case PAUSE_SNAPSHOT, RESUME_SNAPSHOT ->
          refuse(
              id,
              s,
              "an online snapshot is read in one pass and cannot be paused or resumed (that needs"
                  + " the chunked, resumable reads of issue 30, requirement 3, not built)");
    }
  }

  /**
   * Tables that joined the publication in the transaction committed at {@code commitLsn}: loaded by
   * the snapshot waiting for its point, which is after that commit (else it would have been
   * published before it), or by a new one ({@link AddedSnapshots}).
   */
  void added(Signal s, long commitLsn) {
    if (pending != null) {
      Signal merged = AddedSnapshots.merged(pending.signal(), s);
      pending = new Pending(merged, pending.exported(), AddedSnapshots.names(pending.added(), s));
      AddedSnapshots.joined(s, pending.signal(), pending.exported().consistentPoint());
      progress.queued( // the queued snapshot now names the added tables too
          LogText.escape(merged.id()),
          merged.tables().stream().map(t -> t.display()).toList(),
          pending.exported().consistentPoint());
      return;
    }
    String problem = check(s);
    if (problem != null && problem.contains(" is not in publication ")) {
      // left the publication again since (a later start): nothing to load
      refuse(LogText.escape(s.id()), s, problem);
      return;
    }
    prepare(s, LogText.escape(s.id()), commitLsn);
    if (pending == null) {
      // fail closed: ignored, the table would stream without its rows; the signal's transaction
      // is not handed on yet, so the restarted task reads the message again
      throw new IllegalStateException(
          "the online snapshot of the tables added to capture ("
              + LogText.escape(describe(s))
              + ") could not be started"
              + (problem == null ? " (see the WARN before)" : ": " + LogText.escape(problem))
              + "; restart the task: it reads their signal again");
    }
    pending = new Pending(s, pending.exported(), AddedSnapshots.names(java.util.Set.of(), s));
  }

  @Override
  public long pendingPoint() {
    return pending == null ? -1 : pending.exported().consistentPoint();
  }

  @Override
  public boolean pendingAdded(String display) {
    return pending != null && pending.added().contains(display);
  }

  /** Publishes the pending snapshot before a transaction committing at or after its point. */
  void beforeCommit(long commitLsn) {
    if (pending != null && commitLsn >= pending.exported().consistentPoint()) {
      publish();
    }
  }

  /** The stream reached {@code lsn} with nothing in flight before it (a watermark message). */
  void reached(long lsn) {
    if (pending != null && lsn >= pending.exported().consistentPoint()) {
      publish();
    }
  }

  private void prepare(Signal s, String id, long commitLsn) {
    if (pending != null) {
      refuse(
          id,
          s,
          "the snapshot of signal "
              + LogText.escape(pending.signal().id())
              + " is still waiting to be read; send this one again after it");
      return;
    }
    String problem = check(s);
    if (problem != null) {
      refuse(id, s, problem);
      return;
    }
    ExportedSnapshot exported;
    try {
      exported = ExportedSnapshot.create(settings.endpoint(), slotName(settings.slotName()), true);
    } catch (SQLException e) {
      refuse(id, s, "the temporary slot for its snapshot could not be created: " + e.getMessage());
      return;
    }
    pending = new Pending(s, exported, java.util.Set.of());
    progress.queued(
        id, s.tables().stream().map(t -> t.display()).toList(), exported.consistentPoint());
    sequencer.hold();
    LOG.info(
        "Signal {} (committed at {}): snapshot of {} at consistent point {}; published before the"
            + " first transaction committing from there on",
        id,
        Lsn.format(commitLsn),
        LogText.escape(describe(s)),
        Lsn.format(exported.consistentPoint()));
    Watermarks.write(settings, s.id(), exported.consistentPoint());
  }

  /**
   * Why the signal cannot be carried out, or null: each table must be in the publication, and no
   * row filter can be carried out yet.
   */
  private String check(Signal s) {
    try (Connection c = settings.endpoint().connect()) {
      c.setAutoCommit(false);
      c.setReadOnly(true);
      try {
        for (Signal.TableRequest t : s.tables()) {
          if (!published(c, t)) {
            return "table "
                + t.display()
                + " is not in publication "
                + settings.publicationName()
                + " (only captured tables can be snapshotted)";
          }
          if (t.filter() != null) {
            return "a row filter cannot be carried out yet: the sink replaces a snapshotted table"
                + " whole, so a snapshot of the rows of "
                + t.display()
                + " matching the filter would delete the others on the target (a filtered"
                + " snapshot needs the sink to replace only the matching rows); send the signal"
                + " without WHERE";
          }
        }
        return null;
      } finally {
        c.rollback();
      }
    } catch (SQLException e) {
      return "the source could not be asked about its tables: " + e.getMessage();
    }
  }

  private boolean published(Connection c, Signal.TableRequest t) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT 1 FROM pg_publication_tables WHERE pubname = ? AND schemaname = ?"
                + " AND tablename = ?")) {
      ps.setString(1, settings.publicationName());
      ps.setString(2, t.schema());
      ps.setString(3, t.table());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  private void publish() {
    Pending p = pending;
    long point = p.exported().consistentPoint();
    long started = System.currentTimeMillis();
    try (ExportedSnapshot exported = p.exported();
        BarrierPipeline pipeline = pipelines.apply(sequencer.snapshot())) {
      BarrierPipeline.Publication snapshot = pipeline.snapshot(point, started);
      SnapshotReader reader =
          new SnapshotReader(
                  settings.endpoint(),
                  settings.publicationName(),
                  progress.started(),
                  running,
                  1,
                  settings.snapshotReads().keyRangeRows(),
                  settings.spillDirectory())
              .selecting(tables -> selected(tables, p.signal()));
      long rows =
          reader.read(exported, new SnapshotEvents(settings.sourceId(), point, snapshot.events()));
      snapshot.commit();
      progress.completed();
      LOG.info(
          "Signal {}: snapshot of {} at {} published: {} rows in {} ms",
          LogText.escape(p.signal().id()),
          LogText.escape(describe(p.signal())),
          Lsn.format(point),
          rows,
          System.currentTimeMillis() - started);
    } catch (SQLException e) {
      progress.failed(LogText.escape(e.getMessage()));
      throw new IllegalStateException(
          "the online snapshot of signal "
              + LogText.escape(p.signal().id())
              + " failed: "
              + e.getMessage()
              + "; the stream resumes before the signal and takes it again",
          e);
    } finally {
      progress.failedIfUnfinished("the read ended before it was published (the task stopped?)");
      pending = null;
      sequencer.snapshotDone();
    }
  }

  /** The publication's tables the signal names. */
  static List<SnapshotTable> selected(List<SnapshotTable> published, Signal s) {
    List<SnapshotTable> out = new ArrayList<>();
    for (Signal.TableRequest r : s.tables()) {
      SnapshotTable t =
          published.stream()
              .filter(x -> x.schema().equals(r.schema()) && x.name().equals(r.table()))
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "table " + r.display() + " left the publication before its snapshot"));
      out.add(t);
    }
    return out;
  }

  static String describe(Signal s) {
    StringBuilder b = new StringBuilder();
    for (Signal.TableRequest t : s.tables()) {
      if (!b.isEmpty()) {
        b.append(", ");
      }
      b.append(t.display());
      if (t.filter() != null) {
        b.append(" WHERE ").append(t.filter());
      }
    }
    return b.toString();
  }

  /** The temporary slot of an online snapshot: the task's slot name and a suffix, within 63. */
  static String slotName(String slot) {
    String base =
        slot.length() + SLOT_SUFFIX.length() > PgNames.MAX_NAME_BYTES
            ? slot.substring(0, PgNames.MAX_NAME_BYTES - SLOT_SUFFIX.length())
            : slot;
    return base + SLOT_SUFFIX;
  }

  private void refuse(String id, Signal s, String reason) {
    progress.refused(
        id, s.action().wireName(), LogText.escape(describe(s)), LogText.escape(reason));
    LOG.warn(
        "Signal {} ({} {}) refused: {}",
        id,
        s.action().wireName(),
        LogText.escape(describe(s)),
        LogText.escape(reason));
  }

  private void cancel(String why) {
    progress.cancelled(why);
    Pending p = pending;
    pending = null;
    sequencer.release();
    try {
      p.exported().close();
    } catch (SQLException e) {
      LOG.debug("Closing a cancelled snapshot's slot: {}", e.toString());
    }
  }

  @Override
  public void close() {
    if (pending != null) {
      cancel("the task stopped");
    }
  }
}
