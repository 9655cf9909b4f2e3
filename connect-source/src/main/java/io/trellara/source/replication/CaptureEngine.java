package io.trellara.source.replication;

import io.trellara.connect.common.Ticker;
import io.trellara.connect.common.liveness.Stage;
import io.trellara.connect.common.liveness.Stall;
import io.trellara.connect.common.liveness.StalledException;
import io.trellara.connect.common.liveness.Watchdog;
import io.trellara.protocol.Lsn;
import io.trellara.source.pg.Heartbeat;
import io.trellara.source.pg.PgNames;
import io.trellara.source.pg.WalWait;
import io.trellara.source.pgoutput.PgOutputMessage;
import io.trellara.source.pgoutput.PgOutputMessage.LogicalMessage;
import io.trellara.source.pgoutput.PgOutputParser;
import io.trellara.source.snapshot.ExportedSnapshot;
import io.trellara.source.snapshot.SnapshotEvents;
import io.trellara.source.snapshot.SnapshotPlan;
import io.trellara.source.snapshot.SnapshotProgress;
import io.trellara.source.snapshot.SnapshotReader;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Function;
import org.postgresql.PGConnection;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the replication stream on one thread: reads pgoutput, feeds the transaction pipeline, hands
 * the records of committed transactions to the publisher through a queue bounded by records and
 * bytes, answers keepalives, and reports as flushed only what the publisher has acknowledged (Kafka
 * holds it) — or, when nothing is in flight or unacknowledged, the position of the last message
 * received, so an idle slot still advances. A lost replication connection is regained by the engine
 * itself (see {@link #run}).
 *
 * <p>That position comes from the stream: XLogData and the walsender's keepalives, which carry how
 * far it has decoded whenever it waits for WAL. With {@code heartbeatIntervalMs} > 0 a {@link
 * Heartbeat} also writes a logical message every interval, which the engine receives as data,
 * counts and drops (never published).
 */
public final class CaptureEngine implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CaptureEngine.class);
  private final SourceSettings settings;
  private final long startLsn;
  private final Function<Consumer<Outbound>, TransactionPipeline> pipelineFactory;
  private final OutboundQueue queue;
  private final AtomicLong acknowledged = new AtomicLong();
  private final AtomicLong published = new AtomicLong();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final CaptureMetrics metrics = new CaptureMetrics();
  private final SnapshotPlan plan;
  private final ExportedSnapshot exported;
  private final SnapshotProgress snapshotProgress = new SnapshotProgress();
  private volatile boolean running;
  private Thread thread;
  private PGReplicationStream stream; // touched by the capture thread only
  private long lastSequence; // capture thread only

  /** The connection loss met while a transaction was being handed over (capture thread only). */
  private SQLException streamBroken;

  /**
   * The current replication connection; close() aborts it so a thread blocked in socket I/O ends.
   */
  private volatile Connection connection;

  /**
   * The backend PID of that connection's walsender (0: none), which close() may have to terminate.
   */
  private volatile int walsenderPid;

  private Heartbeat heartbeat;
  private final Object closeSignal = new Object();

  /** The stage of a snapshot's reads (rows flowing are its progress), in JMX and a STALLED. */
  public static final String SNAPSHOT_STAGE = "snapshot read";

  /** The stage of the replication stream (any message from the server is its progress). */
  public static final String STREAM_STAGE = StreamLiveness.STAGE;

  private Watchdog watchdog;
  private final boolean ownsWatchdog;
  private final Ticker ticker;
  private StreamLiveness streamLiveness;
  private Stage snapshotStage;

  /** The first stall of a stage of the capture thread; it then fails with STALLED. */
  private final AtomicReference<Stall> stalled = new AtomicReference<>();

  /** The snapshot being read, which a stall of its reads aborts. */
  private volatile SnapshotReader reader;

  static final long GRACE_MS = 2_000;

  /**
   * The longest wait for WAL before the capture thread reports its position and looks at {@code
   * running}.
   */
  static final int WAL_WAIT_MS = 100;

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
    this.watchdog = watchdog;
    this.ownsWatchdog = watchdog == null;
    this.ticker = ticker;
  }

  public void start() {
    if (watchdog == null) {
      watchdog =
          Watchdog.start(
              "source-" + settings.slotName(), Duration.ofMillis(settings.stallTimeoutMs()));
    }
    streamLiveness = new StreamLiveness(watchdog, ticker, settings.slotName(), this::streamStalled);
    snapshotStage = watchdog.stage(SNAPSHOT_STAGE, this::snapshotStalled);
    snapshotProgress.watch(snapshotStage);
    running = true;
    thread = new Thread(this::run, "trellara-capture-" + settings.slotName());
    thread.setDaemon(true);
    thread.start();
    if (settings.heartbeatIntervalMs() > 0) {
      heartbeat =
          new Heartbeat(
              settings.endpoint(), settings.slotName(), settings.heartbeatIntervalMs(), metrics);
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

  public CaptureMetrics metrics() {
    return metrics;
  }

  public SnapshotProgress snapshotProgress() {
    return snapshotProgress;
  }

  /** The watchdog of the task's stages (the task adds its producer's); set by {@link #start}. */
  public Watchdog watchdog() {
    return watchdog;
  }

  /** The engine's stage of that name ({@link #STREAM_STAGE}, {@link #SNAPSHOT_STAGE}), or null. */
  public Stage stage(String name) {
    if (STREAM_STAGE.equals(name)) {
      return streamLiveness == null ? null : streamLiveness.stage();
    }
    return SNAPSHOT_STAGE.equals(name) ? snapshotStage : null;
  }

  /**
   * The replication stream went silent past its bound: the capture thread's connection is closed so
   * that its read ends, and it fails with STALLED instead of reconnecting.
   */
  private void streamStalled(Stall stall) {
    if (!stalled.compareAndSet(null, stall)) {
      return;
    }
    LOG.error(
        "STALLED: {}; slot {}, last LSN received {}: closing the replication connection, the task"
            + " fails",
        stall.describe(),
        settings.slotName(),
        streamLiveness.lastLsn());
    abortQuietly(connection);
  }

  /** The snapshot's reads stopped past their bound: its connections are closed, the task fails. */
  private void snapshotStalled(Stall stall) {
    if (!stalled.compareAndSet(null, stall)) {
      return;
    }
    LOG.error(
        "STALLED: {}; snapshot of publication {}: closing its connections, the task fails",
        stall.describe(),
        settings.publicationName());
    SnapshotReader r = reader;
    if (r != null) {
      r.abort();
    }
  }

  /** The failure of a stage that stalled, with {@code detail}; null when none stalled. */
  private StalledException stalledFailure(String detail, Throwable cause) {
    Stall s = stalled.get();
    return s == null ? null : new StalledException(s, detail, cause);
  }

  private void abortQuietly(Connection c) {
    if (c == null) {
      return;
    }
    try {
      c.abort(Runnable::run);
    } catch (SQLException | RuntimeException e) {
      LOG.debug(
          "Aborting the replication connection of slot {}: {}", settings.slotName(), e.toString());
    }
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

  /**
   * Captures until closed or failed. A lost replication connection ({@link ReplicationErrors}) is
   * not a failure: the engine opens a new stream after a growing delay ({@link ReconnectBackoff})
   * until {@code reconnectMaxDurationMs} have passed, then fails with the last cause.
   *
   * <p>Why a reconnect is safe. The new stream starts at max(start position, {@link
   * #acknowledged}); the server resumes at max(that, the slot's confirmed_flush_lsn), which this
   * engine never moved past {@code acknowledged} except when everything published was acknowledged
   * and nothing was in flight (see {@link #report}). So every transaction that is not wholly
   * acknowledged is sent again from its Begin, and the pipeline is recreated (the old one closed:
   * its in-flight and streamed transactions and their spill files are dropped) so it rebuilds each
   * one from its start. Records already queued stay queued: a re-sent transaction becomes a
   * duplicate, which the sink absorbs by transaction identity.
   *
   * <p>Acknowledgement with duplicates. Each pipeline's records get sequences after the previous
   * pipeline's ({@link #numbered}), so the task's AckTracker sees a duplicate as one more
   * transaction in hand-over order, and releases an end LSN only when that copy and every record
   * handed out before it are acknowledged. {@code acknowledged} and {@code published} are maxima: a
   * duplicate's end LSN is at most what was published before, so neither moves back, and the idle
   * flush still waits for {@code acknowledged >= published}, i.e. for Kafka to hold the newest
   * transaction ever handed over. A transaction is handed over whole or not at all while the engine
   * runs ({@link #publish} keeps waiting for the queue when the connection breaks under it), so no
   * half-published transaction blocks the tracker. The slot is therefore never flushed past a
   * transaction Kafka does not hold. Connect's source offset may step back to a duplicate's end LSN
   * for a while: a restart then resumes earlier, never later.
   */
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
    ReconnectBackoff backoff = new ReconnectBackoff(settings.reconnectMaxDurationMs());
    boolean reconnecting = false;
    while (running) {
      try {
        capture(reconnecting, backoff);
        return; // closed
      } catch (Throwable t) {
        streamLiveness.stopped();
        StalledException stall =
            stalledFailure(
                "slot "
                    + settings.slotName()
                    + ", last LSN received "
                    + streamLiveness.lastLsn()
                    + "; the replication connection was closed. The server (or the network to it)"
                    + " stopped answering: check it; the task's restart resumes from the offsets",
                t);
        if (stall != null) {
          failure.set(stall);
          return;
        }
        if (!running) {
          return; // close() broke the connection
        }
        if (!ReplicationErrors.isConnectionLoss(t)) {
          failure.set(t);
          return;
        }
        long now = System.currentTimeMillis();
        metrics.disconnected(t, now);
        long delay = backoff.lost(now);
        if (delay < 0) {
          LOG.error(
              "Replication connection of slot {} lost and not regained within {} ms ({}={});"
                  + " the task fails with the last cause: {}",
              settings.slotName(),
              now - backoff.outageStartMs(),
              RECONNECT_SETTING,
              settings.reconnectMaxDurationMs(),
              t.toString());
          failure.set(t);
          return;
        }
        if (backoff.worthLogging(now)) {
          LOG.warn(
              "Replication connection of slot {} lost: {}; reconnecting in {} ms (outage {} ms so far,"
                  + " giving up after {} ms)",
              settings.slotName(),
              describe(t),
              delay,
              now - backoff.outageStartMs(),
              settings.reconnectMaxDurationMs());
        }
        reconnecting = true;
        if (!pause(delay)) {
          return;
        }
      }
    }
  }

  static final String RECONNECT_SETTING = "replication.reconnect.max.duration.ms";

  /**
   * Reads the exported snapshot and publishes the snapshot transaction through a pipeline of its
   * own (the stream's pipeline starts afresh after it). False when capture must not go on: the
   * engine was closed, or the snapshot failed (the task fails; the next start snapshots again, in a
   * new slot).
   */
  private boolean snapshot() {
    try {
      try (exported;
          BarrierPipeline pipeline = StrictPipeline.snapshotFactory(settings).apply(numbered())) {
        long consistentPoint = exported.consistentPoint();
        LOG.info("Snapshot: {}; streaming continues from there", exported);
        BarrierPipeline.Publication snapshot =
            pipeline.snapshot(consistentPoint, System.currentTimeMillis());
        reader =
            new SnapshotReader(
                settings.endpoint(),
                settings.publicationName(),
                snapshotProgress,
                () -> running,
                settings.snapshotReads().maxThreads(),
                settings.snapshotReads().keyRangeRows(),
                settings.spillDirectory());
        reader.read(
            exported, new SnapshotEvents(settings.sourceId(), consistentPoint, snapshot.events()));
        snapshot.commit();
      }
      return running;
    } catch (SnapshotReader.SnapshotCancelledException e) {
      LOG.info("Snapshot abandoned: {}", e.getMessage());
      return false;
    } catch (Throwable t) {
      StalledException stall =
          stalledFailure(
              "snapshot of publication "
                  + settings.publicationName()
                  + "; its connections were closed, and the next start snapshots again",
              t);
      if (stall != null) {
        failure.set(stall);
        return false;
      }
      if (running) {
        LOG.error(
            "Snapshot of publication {} failed: {}; the task fails, and its next start snapshots"
                + " again in a new slot",
            settings.publicationName(),
            describe(t));
        failure.set(t);
      }
      return false;
    }
  }

  /** One replication connection: its stream and a fresh pipeline, until closed or an error. */
  private void capture(boolean reconnecting, ReconnectBackoff backoff) throws Exception {
    long from = Math.max(startLsn, acknowledged.get());
    streamLiveness.streaming(); // opening the stream is waiting for the server too
    try (Connection c = settings.endpoint().connectForReplication();
        TransactionPipeline pipeline = pipelineFactory.apply(numbered())) {
      connection = c;
      walsenderPid = c.unwrap(PGConnection.class).getBackendPID();
      if (!running) {
        return; // close() ran before it could see this connection
      }
      streamBroken = null;
      stream = open(c, from);
      if (stalled.get() != null) {
        throw new SQLException("the replication stream stalled while it was opened");
      }
      backoff.connected(System.currentTimeMillis());
      if (reconnecting) {
        metrics.reconnected();
        LOG.info(
            "Replication connection of slot {} regained; the stream resumes at {} (or the slot's"
                + " confirmed_flush_lsn if later); transactions Kafka has not acknowledged are sent"
                + " again",
            settings.slotName(),
            from == 0 ? "the slot's position" : Lsn.format(from));
      }
      PgOutputParser parser = new PgOutputParser(settings.protocolVersion());
      long reported = 0;
      long lastStatus = System.nanoTime();
      WalWait wal = WalWait.on(c);
      IdleWait idle = new IdleWait(lastStatus); // paces the looks when the wait cannot wait
      int waitMillis = (int) Math.max(1, Math.min(WAL_WAIT_MS, settings.statusIntervalMs()));
      if (!wal.waits()) {
        // without the socket wait a keepalive cannot be told from an empty look: not watched
        streamLiveness.stopped();
      }
      while (running) {
        // wakes the moment a message arrives; a wait that timed out is an empty look
        boolean arrived = wal.await(waitMillis);
        ByteBuffer buffer = arrived ? stream.readPending() : null;
        if (arrived && wal.waits()) {
          streamLiveness.received(stream.getLastReceiveLSN().asLong()); // data or keepalive
        } else if (wal.waits() && streamLiveness.probeDue()) {
          stream.forceUpdateStatus(); // asks for a reply: an idle walsender answers a keepalive
        }
        if (buffer != null) {
          idle.message(System.nanoTime());
          PgOutputMessage message = parser.parse(buffer);
          metrics.messages.incrementAndGet();
          if (message instanceof LogicalMessage m
              && Heartbeat.isHeartbeat(m.transactional(), m.prefix())) {
            // outside any transaction: the idle flush in report() may confirm up to it
            metrics.heartbeatReceived(m.lsn() != 0 ? m.lsn() : stream.getLastReceiveLSN().asLong());
          } else {
            pipeline.accept(message, buffer, stream.getLastReceiveLSN().asLong());
          }
          if (streamBroken != null) {
            throw streamBroken; // the hand-over finished; now reconnect
          }
        } else if (!wal.waits()) {
          long pause = idle.pauseNanos(System.nanoTime());
          if (pause > 0) {
            LockSupport.parkNanos(pause);
          }
        }
        long now = System.nanoTime();
        if (buffer == null || now - lastStatus > settings.statusIntervalMs() * 1_000_000L) {
          reported = report(stream, pipeline, reported);
          lastStatus = now;
        }
      }
      stream.close();
    } finally {
      streamLiveness.stopped();
      connection = null;
      walsenderPid = 0;
    }
  }

  /** The pipeline's records, numbered after every record of the pipelines before it. */
  private Consumer<Outbound> numbered() {
    long base = lastSequence;
    return o -> {
      Outbound r = base == 0 ? o : o.withSequence(base + o.sequence());
      lastSequence = Math.max(lastSequence, r.sequence());
      publish(r);
    };
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

  private static String describe(Throwable t) {
    StringBuilder b = new StringBuilder(t.toString());
    for (Throwable c = t.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      b.append(" (caused by ").append(c).append(')');
      if (b.length() > 600) {
        break;
      }
    }
    return b.toString();
  }

  private PGReplicationStream open(Connection connection, long from) throws SQLException {
    var builder =
        connection
            .unwrap(PGConnection.class)
            .getReplicationAPI()
            .replicationStream()
            .logical()
            .withSlotName(settings.slotName())
            .withSlotOption("proto_version", Integer.toString(settings.protocolVersion()))
            .withSlotOption(
                "publication_names", PgNames.publicationNamesOption(settings.publicationName()))
            .withSlotOption("messages", "true")
            .withStatusInterval((int) settings.statusIntervalMs(), TimeUnit.MILLISECONDS);
    if (settings.protocolVersion() >= 2 && settings.streaming()) {
      builder.withSlotOption("streaming", "on");
    }
    if (from != 0) {
      builder.withStartPosition(LogSequenceNumber.valueOf(from));
    }
    return builder.start();
  }

  /**
   * Flushed position: what Kafka acknowledged, or everything received when nothing is outstanding.
   */
  private long report(PGReplicationStream stream, TransactionPipeline pipeline, long reported)
      throws SQLException {
    metrics.sample(pipeline);
    long ack = acknowledged.get();
    long flush = ack;
    if (pipeline.idle() && queue.isEmpty() && ack >= published.get()) {
      flush = Math.max(ack, stream.getLastReceiveLSN().asLong());
    }
    if (flush > reported) {
      LogSequenceNumber lsn = LogSequenceNumber.valueOf(flush);
      stream.setFlushedLSN(lsn);
      stream.setAppliedLSN(lsn);
      stream.forceUpdateStatus();
      metrics.confirmedFlushLsn.set(flush);
      return flush;
    }
    return reported;
  }

  /** Called on the capture thread; blocks while the publisher is behind (back-pressure). */
  private void publish(Outbound record) {
    streamLiveness.handingOver(); // the capture thread works: not waiting for the server
    if (record.closesTransaction()) {
      published.accumulateAndGet(record.endLsn(), Math::max);
      metrics.transactions.incrementAndGet();
      metrics.events.addAndGet(record.counts().sourceTotal());
    }
    try {
      while (running && !queue.offer(record, 500)) {
        // waiting for the publisher, whose own stage watches it: not the server's silence
        streamLiveness.handingOver();
        snapshotStage.progress();
        if (streamBroken == null && stream != null) {
          try {
            stream.forceUpdateStatus(); // still alive: keep wal_sender_timeout from closing the
            // stream
          } catch (SQLException e) {
            // the transaction is complete here: finish handing it over, reconnect afterwards, so
            // the publisher never holds part of a transaction without its closing record
            streamBroken = e;
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while handing over a transaction", e);
    }
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
   * #terminateWalsender}). A reconnect delay ends at once.
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
    if (watchdog != null) {
      if (ownsWatchdog) {
        watchdog.close();
      } else if (streamLiveness != null) {
        watchdog.remove(streamLiveness.stage());
        watchdog.remove(snapshotStage);
      }
    }
    if (thread == null) {
      return;
    }
    try {
      thread.join(GRACE_MS);
      if (thread.isAlive()) {
        Connection c = connection;
        int pid = walsenderPid; // read first: the thread forgets it once the abort ends its stream
        if (c != null) {
          LOG.info(
              "The capture thread of slot {} did not end within {} ms; aborting its replication"
                  + " connection",
              settings.slotName(),
              GRACE_MS);
          try {
            c.abort(Runnable::run); // closes the socket: ends a read or write blocked on it
          } catch (SQLException | RuntimeException e) {
            LOG.debug(
                "Aborting the replication connection of slot {}: {}",
                settings.slotName(),
                e.toString());
          }
          if (pid != 0) {
            terminateWalsender(pid);
          }
        }
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

  private static void closeQuietly(ExportedSnapshot e) {
    try {
      e.close();
    } catch (SQLException | RuntimeException ex) {
      LOG.debug("Closing the exported snapshot's connection: {}", ex.toString());
    }
  }

  static final String TERMINATE_SQL =
      "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots"
          + " WHERE slot_name = ? AND active_pid = ?";

  /**
   * PostgreSQL 14+: waits (up to 5 s) for the walsender to exit, so the slot is free when close
   * returns.
   */
  static final String TERMINATE_AND_WAIT_SQL =
      "SELECT pg_terminate_backend(active_pid, 5000)"
          + " FROM pg_replication_slots WHERE slot_name = ? AND active_pid = ?";

  /**
   * Ends the walsender {@code pid} if it still holds this engine's slot (only that one: a slot
   * taken over by another walsender is left alone). A role may terminate its own backends. Failure
   * is logged, not thrown: then the slot is released by wal_sender_timeout, and a task started
   * meanwhile retries (SQLSTATE 55006 is a connection loss to it, see {@link ReplicationErrors}).
   */
  private void terminateWalsender(int pid) {
    try (Connection c = settings.endpoint().connect()) {
      String sql =
          c.getMetaData().getDatabaseMajorVersion() >= 14 ? TERMINATE_AND_WAIT_SQL : TERMINATE_SQL;
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setQueryTimeout(10);
        ps.setString(1, settings.slotName());
        ps.setInt(2, pid);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            LOG.info(
                "Terminated walsender {} that still held slot {} after its connection was aborted"
                    + " ({})",
                pid,
                settings.slotName(),
                rs.getBoolean(1) ? "it exited" : "not yet exited");
          } else {
            LOG.debug("Walsender {} no longer holds slot {}", pid, settings.slotName());
          }
        }
      }
    } catch (SQLException | RuntimeException e) {
      LOG.warn(
          "Could not terminate walsender {} of slot {} after aborting its connection: {}; the slot stays"
              + " active until PostgreSQL notices the lost connection (wal_sender_timeout)",
          pid,
          settings.slotName(),
          e.toString());
    }
  }
}
