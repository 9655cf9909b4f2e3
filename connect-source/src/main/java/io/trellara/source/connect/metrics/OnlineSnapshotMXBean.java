package io.trellara.source.connect.metrics;

/**
 * The online (signalled) snapshots of one source task, part of its {@link SourceTaskMetricsMXBean}
 * bean. At most one is queued or running at a time (a second snapshot signal meanwhile is refused).
 * Figures of the running snapshot are 0 (counts), -1 (unknown) or null (names) when none runs.
 */
public interface OnlineSnapshotMXBean {

  /**
   * IDLE (none signalled, or the last ended), QUEUED (signalled, its slot created, waiting for the
   * stream to reach its consistent point) or RUNNING (its tables are being read). Never PAUSED: an
   * online snapshot is read in one pass and pause-snapshot signals are refused.
   */
  String getOnlineSnapshotState();

  /** The id of the signal that asked for the queued or running snapshot; null when idle. */
  String getOnlineSnapshotSignalId();

  /** The tables it names, comma-separated; null when idle. */
  String getOnlineSnapshotTables();

  /** The LSN its snapshot is taken at (its temporary slot's consistent point); null when idle. */
  String getOnlineSnapshotConsistentPoint();

  /** Milliseconds since its signal was taken (queued, then running); 0 when idle. */
  long getOnlineSnapshotSinceSignalMs();

  /** Tables not begun yet: all of them while queued, those after the current one while running. */
  long getOnlineSnapshotTablesQueued();

  long getOnlineSnapshotTablesDone();

  long getOnlineSnapshotTablesTotal();

  /** The table being read; null when none is. */
  String getOnlineSnapshotCurrentTable();

  /** Rows and bytes (COPY text) the running snapshot has read, over all its tables. */
  long getOnlineSnapshotRows();

  long getOnlineSnapshotBytes();

  /** Rows of the current table read so far (updated every 1,024 rows). */
  long getOnlineSnapshotCurrentTableRows();

  /**
   * Key ranges of snapshot.key.range.rows rows of the current table read; a table without a usable
   * key is one chunk.
   */
  long getOnlineSnapshotChunksDone();

  /**
   * Key ranges of the current table in all, from its pg_class.reltuples (at least done + 1 while it
   * is read); -1 unknown (never analysed).
   */
  long getOnlineSnapshotChunksTotal();

  /** Rows read per second since the reads began. */
  double getOnlineSnapshotRowsPerSecond();

  /** Seconds left at that rate, from the tables' pg_class.reltuples; -1 unknown or none runs. */
  long getOnlineSnapshotEtaSeconds();

  /** Online snapshots published since the task started. */
  long getOnlineSnapshotsCompleted();

  /** Online snapshots that failed (the task fails with them and takes the signal again). */
  long getOnlineSnapshotsFailed();

  /** Online snapshots cancelled before their reads (stop-snapshot, the task stopping). */
  long getOnlineSnapshotsCancelled();

  /** Signals refused (logged at WARN with the reason): pause/resume, unknown tables, filters... */
  long getOnlineSnapshotSignalsRefused();

  /** How the last online snapshot ended: COMPLETED, FAILED or CANCELLED; null none yet. */
  String getOnlineSnapshotLastOutcome();

  String getOnlineSnapshotLastSignalId();

  String getOnlineSnapshotLastTables();

  /** Rows the last online snapshot read (and published, when it completed); -1 none yet. */
  long getOnlineSnapshotLastRows();

  long getOnlineSnapshotLastBytes();

  /** From its first read to its end (publication included); -1 none yet. */
  long getOnlineSnapshotLastElapsedMs();

  /** When it ended (epoch ms); -1 none yet. */
  long getOnlineSnapshotLastEndedAtMs();

  /** The last one in one line, e.g. "reload-1 COMPLETED public.ledger at 0/1A2B3C8: ..." */
  String getOnlineSnapshotLastSummary();

  /** The last signal refused and why, e.g. "p-1 pause-snapshot: ..."; null none yet. */
  String getOnlineSnapshotLastRefusal();
}
