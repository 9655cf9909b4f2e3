package io.trellara.source.replication;

import io.trellara.connect.common.Ticker;
import io.trellara.connect.common.liveness.Stage;
import io.trellara.connect.common.liveness.StalledException;
import io.trellara.connect.common.liveness.Watchdog;
import io.trellara.source.pg.Heartbeat;
import io.trellara.source.pg.ReplicationStreams;
import io.trellara.source.snapshot.ExportedSnapshot;
import io.trellara.source.snapshot.SnapshotPlan;
import io.trellara.source.snapshot.SnapshotProgress;
import io.trellara.source.snapshot.SnapshotReader;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the replication stream on one thread: takes the initial snapshot when planned ({@link
 * SnapshotRun}), then streams ({@link StreamSession}: reads pgoutput, feeds the transaction
 * pipeline, answers keepalives, reports as flushed only what Kafka holds or, when nothing is
 * outstanding, the last position received), hands the records of committed transactions to the
 * publisher through a queue bounded by records and bytes ({@link Handover}), and regains a lost
 * replication connection itself (see {@link #run}). With {@code heartbeatIntervalMs} > 0 a {@link
 * Heartbeat} also writes a logical message every interval, which the stream counts and drops. Its
 * stages (the stream, the snapshot's reads) report to a {@link Watchdog}: one past its bound fails
 * the engine with STALLED.
 */
public final class CaptureEngine implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CaptureEngine.class);

  /** The stage of a snapshot's reads (rows flowing are its progress), in JMX and a STALLED. */
  public static final String SNAPSHOT_STAGE = "snapshot read";

  /** The stage of the replication stream (any message from the server is its progress). */
  public static final String STREAM_STAGE = StreamLiveness.STAGE;

  static final long GRACE_MS = 2_000;

  private final SourceSettings settings;
  private final long startLsn;
  private final Function<Consumer<Outbound>, TransactionPipeline> pipelineFactory;
  private final OutboundQueue queue;
  private final AtomicLong acknowledged = new AtomicLong();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final CaptureMetrics metrics = new CaptureMetrics();
  private final SnapshotPlan plan;
  private final ExportedSnapshot exported;
  private final SnapshotProgress snapshotProgress = new SnapshotProgress();
  private final StreamSession.Current current = new StreamSession.Current();
  private final Object closeSignal = new Object();
  private final Watchdog givenWatchdog;
  private final Ticker ticker;

  private volatile boolean running;
  private Thread thread;
  private Heartbeat heartbeat;
  private EngineStages stages;
  private Handover handover;
  private SnapshotRun snapshotRun;

  public CaptureEngine(
      SourceSettings settings,
      long startLsn,
      Function<Consumer<Outbound>, TransactionPipeline> pipelineFactory) {
    this(settings, startLsn, pipelineFactory, SnapshotPlan.STREAM, null);
  }

  /**
   * @param exported the slot just created with its exported snapshot when {@code plan} reads one
   *     (the task creates it before it reports itself started, so what commits after that is
   *     streamed); the engine reads the snapshot on its thread and closes it
   */
  public CaptureEngine(
      SourceSettings settings,
      long startLsn,
      Function<Consumer<Outbound>, TransactionPipeline> pipelineFactory,
      SnapshotPlan plan,
      ExportedSnapshot exported) {
    this(settings, startLsn, pipelineFactory, plan, exported, null, Ticker.SYSTEM);
  }

  /**
   * @param watchdog the watchdog of the task's stages (tests: a manual one); null: the engine
   *     starts its own with {@code stallTimeoutMs} and closes it with itself
   * @param ticker the clock of the stream's probes (the watchdog's)
   */
  public CaptureEngine(
      SourceSettings settings,
      long startLsn,
      Function<Consumer<Outbound>, TransactionPipeline> pipelineFactory,
      SnapshotPlan plan,
      ExportedSnapshot exported,
      Watchdog watchdog,
      Ticker ticker) {
    if (plan.read() != (exported != null)) {
      throw new IllegalArgumentException(
          "a snapshot plan needs its exported snapshot, and only it");
    }
    this.settings = settings;
    this.startLsn = startLsn;
    this.pipelineFactory = pipelineFactory;
    this.plan = plan;
    this.exported = exported;
    this.queue = new OutboundQueue(settings.queueMaxRecords(), settings.queueMaxBytes());
    this.givenWatchdog = watchdog;
    this.ticker = ticker;
  }

  public void start() {
    stages =
        new EngineStages(
            givenWatchdog,
            ticker,
            settings,
            () -> ReplicationStreams.abort(current.connection, settings.slotName()),
            () -> snapshotRun.abort());
    StreamLiveness streamLiveness = stages.stream();
    snapshotProgress.watch(stages.snapshot());
    // waiting for the publisher is not the server's silence: the publisher's own stage watches it
    handover =
        new Handover(
            queue,
            metrics,
            () -> running,
            streamLiveness::handingOver,
            () -> {
              streamLiveness.handingOver();
              stages.snapshot().progress();
            });
    snapshotRun = new SnapshotRun(settings, handover, snapshotProgress, () -> running);
    running = true;
    thread = new Thread(this::run, "trellara-capture-" + settings.slotName());
    thread.setDaemon(true);
    thread.start();
    if (settings.heartbeatIntervalMs() > 0) {
      heartbeat =
          new Heartbeat(
              settings.endpoint(),
              settings.slotName(),
              settings.heartbeatIntervalMs(),
              settings.walGuard().heartbeatActionQuery(),
              metrics);
      heartbeat.start();
    }
  }

  /**
   * Records of committed transactions in publication order; waits up to {@code timeoutMs} for the
   * first.
   */
  public List<Outbound> poll(long timeoutMs) throws InterruptedException {
    rethrowFailure();
    List<Outbound> out = new ArrayList<>();
    queue.drainTo(out, timeoutMs);
    rethrowFailure();
    return out;
  }

  /**
   * Kafka holds every transaction up to this commit-record end: PostgreSQL may discard WAL before
   * it.
   */
  public void acknowledge(long endLsn) {
    acknowledged.accumulateAndGet(endLsn, Math::max);
  }

  public long acknowledgedLsn() {
    return acknowledged.get();
  }

  /** Records waiting for the publisher (the task's poll). */
  public int queuedRecords() {
    return queue.size();
  }

  /** Bytes of the records waiting for the publisher. */
  public long queuedBytes() {
    return queue.bytes();
  }

  public SourceSettings settings() {
    return settings;
  }

  /** The server of the newest replication connection (IDENTIFY_SYSTEM); null before the first. */
  public io.trellara.source.pg.ServerIdentity server() {
    return current.server;
  }

  public CaptureMetrics metrics() {
    return metrics;
  }

  public SnapshotProgress snapshotProgress() {
    return snapshotProgress;
  }

  /** The watchdog of the task's stages (the task adds its producer's); set by {@link #start}. */
  public Watchdog watchdog() {
    return stages == null ? givenWatchdog : stages.watchdog();
  }

  /** The engine's stage of that name ({@link #STREAM_STAGE}, {@link #SNAPSHOT_STAGE}), or null. */
  public Stage stage(String name) {
    if (stages == null) {
      return null;
    }
    if (STREAM_STAGE.equals(name)) {
      return stages.stream().stage();
    }
    return SNAPSHOT_STAGE.equals(name) ? stages.snapshot() : null;
  }

  /** True while the capture thread runs (capturing, or waiting to reconnect). */
  boolean capturing() {
    return thread != null && thread.isAlive();
  }

  private void rethrowFailure() {
    Throwable t = failure.get();
    if (t instanceof StalledException stall) {
      throw stall; // STALLED: names the stage; the task's message starts with it
    }
    if (t != null) {
      throw new CaptureFailedException(
          "capture of slot " + settings.slotName() + " stopped: " + t.getMessage(), t);
    }
  }

  /** Captures until closed or failed: the snapshot first when planned, then the stream. */
  private void run() {
    if (plan.read() && !snapshot()) {
      return;
    }
    if (!plan.stream()) {
      LOG.info(
          "snapshot.mode=initial_only: the snapshot is published; slot {} is not streamed",
          settings.slotName());
      while (pause(60_000)) {
        // nothing to capture until closed
      }
      return;
    }
    StreamSession session =
        new StreamSession(
            settings,
            pipelineFactory,
            handover,
            queue,
            acknowledged,
            metrics,
            stages.stream(),
            () -> running,
            stages::stalled,
            current);
    new ReconnectingStream(settings, session, metrics, () -> running, this::pause, Ticker.SYSTEM)
        .run(
            () -> Math.max(startLsn, acknowledged.get()),
            t ->
                stages.failure(
                    "slot "
                        + settings.slotName()
                        + ", last LSN received "
                        + stages.lastLsn()
                        + "; the replication connection was closed. The server (or the network to"
                        + " it) stopped answering: check it; the task's restart resumes from the"
                        + " offsets",
                    t),
            failure::set);
  }

  /**
   * The snapshot. False when capture must not go on: the engine was closed, or the snapshot failed
   * (the task fails; the next start snapshots again, in a new slot).
   */
  private boolean snapshot() {
    try {
      LOG.info("Snapshot: {}; streaming continues from there", exported);
      snapshotRun.run(exported);
      return running;
    } catch (SnapshotReader.SnapshotCancelledException e) {
      LOG.info("Snapshot abandoned: {}", e.getMessage());
      return false;
    } catch (Throwable t) {
      StalledException stall =
          stages.failure(
              "snapshot of publication "
                  + settings.publicationName()
                  + "; its connections were closed, and the next start snapshots again",
              t);
      if (stall != null) {
        failure.set(stall);
      } else if (running) {
        LOG.error(
            "Snapshot of publication {} failed: {}; the task fails, and its next start snapshots"
                + " again in a new slot",
            settings.publicationName(),
            ReconnectingStream.describe(t));
        failure.set(t);
      }
      return false;
    }
  }

  /** Waits out a reconnect delay; false when the engine was closed meanwhile. */
  private boolean pause(long delayMs) {
    long deadline = System.nanoTime() + delayMs * 1_000_000L;
    synchronized (closeSignal) {
      while (running) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return true;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(closeSignal, left);
        } catch (InterruptedException e) {
          return running;
        }
      }
    }
    return false;
  }

  /**
   * Stops capture and releases the slot, so a task started next on the same slot gets it at once:
   * the capture thread normally ends its stream itself within a moment (it checks {@code running}
   * at least every 500 ms; the walsender releases the slot when it answers the stream's CopyDone);
   * a thread still blocked after {@value #GRACE_MS} ms (socket I/O to a server that went silent)
   * has its connection aborted, which closes the socket under it. PostgreSQL sees a closed socket
   * at once, but not one whose packets are lost on the way (a NAT, firewall or proxy that dropped
   * the flow): its walsender would hold the slot until wal_sender_timeout, so after an abort the
   * engine also terminates that walsender, found by its PID, over an ordinary connection ({@link
   * ReplicationStreams#terminateWalsender}). A reconnect delay ends at once.
   */
  @Override
  public void close() {
    running = false;
    if (exported != null && thread == null) {
      closeQuietly(exported); // never started: nothing else will release the exported snapshot
    }
    synchronized (closeSignal) {
      closeSignal.notifyAll(); // ends a reconnect delay
    }
    if (heartbeat != null) {
      heartbeat.close();
    }
    if (stages != null) {
      stages.close();
    }
    if (thread == null) {
      return;
    }
    try {
      thread.join(GRACE_MS);
      if (thread.isAlive()) {
        abortBlockedThread();
        thread.interrupt();
        thread.join(10_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      LOG.warn("The capture thread of slot {} did not end after close", settings.slotName());
    }
  }

  private void abortBlockedThread() {
    Connection c = current.connection;
    int pid = current.walsenderPid; // read first: the thread forgets it once its stream ends
    if (c != null) {
      LOG.info(
          "The capture thread of slot {} did not end within {} ms; aborting its replication"
              + " connection",
          settings.slotName(),
          GRACE_MS);
      ReplicationStreams.abort(
          c, settings.slotName()); // closes the socket: ends a read or write blocked on it
      if (pid != 0) {
        ReplicationStreams.terminateWalsender(settings.endpoint(), settings.slotName(), pid);
      }
    }
  }

  private static void closeQuietly(ExportedSnapshot e) {
    try {
      e.close();
    } catch (SQLException | RuntimeException ex) {
      LOG.debug("Closing the exported snapshot's connection: {}", ex.toString());
    }
  }
}
