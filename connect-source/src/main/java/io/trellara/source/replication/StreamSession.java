package io.trellara.source.replication;

import io.trellara.protocol.Lsn;
import io.trellara.source.pg.Heartbeat;
import io.trellara.source.pg.ReplicationStreams;
import io.trellara.source.pg.ServerIdentity;
import io.trellara.source.pg.WalWait;
import io.trellara.source.pgoutput.PgOutputMessage;
import io.trellara.source.pgoutput.PgOutputMessage.LogicalMessage;
import io.trellara.source.pgoutput.PgOutputParser;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import org.postgresql.PGConnection;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One replication connection of the capture thread: its stream and a fresh pipeline, read until the
 * engine closes or an error ends it. Reads pgoutput (waiting on the socket, {@link WalWait}), feeds
 * the pipeline, drops heartbeats after counting them, reports its liveness, and reports as flushed
 * only what Kafka acknowledged, or, when nothing is in flight, queued or unacknowledged, the last
 * position received, so an idle slot still advances ({@link #report}).
 */
final class StreamSession {
  private static final Logger LOG = LoggerFactory.getLogger(StreamSession.class);

  /**
   * The longest wait for WAL before the capture thread reports its position and looks at {@code
   * running}.
   */
  static final int WAL_WAIT_MS = 100;

  /** The connection in use, which the engine aborts on close or on a stall. */
  static final class Current {
    volatile Connection connection;

    /** The backend PID of that connection's walsender (0: none). */
    volatile int walsenderPid;

    /** The server of the last connection (IDENTIFY_SYSTEM); null before the first. */
    volatile ServerIdentity server;
  }

  private final SourceSettings settings;
  private final Function<Consumer<Outbound>, TransactionPipeline> pipelineFactory;
  private final Handover handover;
  private final OutboundQueue queue;
  private final AtomicLong acknowledged;
  private final CaptureMetrics metrics;
  private final StreamLiveness liveness;
  private final BooleanSupplier running;
  private final BooleanSupplier stalled;
  private final Current current;

  StreamSession(
      SourceSettings settings,
      Function<Consumer<Outbound>, TransactionPipeline> pipelineFactory,
      Handover handover,
      OutboundQueue queue,
      AtomicLong acknowledged,
      CaptureMetrics metrics,
      StreamLiveness liveness,
      BooleanSupplier running,
      BooleanSupplier stalled,
      Current current) {
    this.settings = settings;
    this.pipelineFactory = pipelineFactory;
    this.handover = handover;
    this.queue = queue;
    this.acknowledged = acknowledged;
    this.metrics = metrics;
    this.liveness = liveness;
    this.running = running;
    this.stalled = stalled;
    this.current = current;
  }

  /**
   * Streams from {@code from} (0: the slot's position) until closed; throws what ended it.
   *
   * @param opened runs once the stream is open (the reconnect policy's "connected")
   */
  void run(long from, boolean reconnecting, Runnable opened) throws Exception {
    liveness.streaming(); // opening the stream is waiting for the server too
    try (Connection c = settings.endpoint().connectForReplication();
        TransactionPipeline pipeline = pipelineFactory.apply(handover.numbered())) {
      current.connection = c;
      current.walsenderPid = c.unwrap(PGConnection.class).getBackendPID();
      if (!running.getAsBoolean()) {
        return; // close() ran before it could see this connection
      }
      ServerIdentity server = ServerIdentity.of(c);
      String switched = ServerIdentity.continuation(current.server, server, settings.slotName());
      if (switched != null) {
        LOG.warn(switched);
      }
      current.server = server;
      PGReplicationStream stream =
          ReplicationStreams.open(
              c,
              settings.slotName(),
              settings.publicationName(),
              settings.protocolVersion(),
              settings.streaming(),
              settings.statusIntervalMs(),
              from);
      handover.streaming(stream);
      if (stalled.getAsBoolean()) {
        throw new SQLException("the replication stream stalled while it was opened");
      }
      opened.run();
      if (reconnecting) {
        metrics.reconnected();
        LOG.info(
            "Replication connection of slot {} regained; the stream resumes at {} (or the slot's"
                + " confirmed_flush_lsn if later); transactions Kafka has not acknowledged are sent"
                + " again",
            settings.slotName(),
            from == 0 ? "the slot's position" : Lsn.format(from));
      }
      read(c, stream, pipeline);
      stream.close();
    } finally {
      liveness.stopped();
      handover.streaming(null);
      current.connection = null;
      current.walsenderPid = 0;
    }
  }

  private void read(Connection c, PGReplicationStream stream, TransactionPipeline pipeline)
      throws Exception {
    PgOutputParser parser = new PgOutputParser(settings.protocolVersion());
    long reported = 0;
    long lastStatus = System.nanoTime();
    WalWait wal = WalWait.on(c);
    IdleWait idle = new IdleWait(lastStatus); // paces the looks when the wait cannot wait
    int waitMillis = (int) Math.max(1, Math.min(WAL_WAIT_MS, settings.statusIntervalMs()));
    if (!wal.waits()) {
      // without the socket wait a keepalive cannot be told from an empty look: not watched
      liveness.stopped();
    }
    while (running.getAsBoolean()) {
      // wakes the moment a message arrives; a wait that timed out is an empty look
      boolean arrived = wal.await(waitMillis);
      ByteBuffer buffer = arrived ? stream.readPending() : null;
      if (arrived && wal.waits()) {
        liveness.received(stream.getLastReceiveLSN().asLong()); // data or keepalive
      } else if (wal.waits() && liveness.probeDue()) {
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
        if (handover.broken() != null) {
          throw handover.broken(); // the hand-over finished; now reconnect
        }
      } else {
        pipeline.quiet();
      }
      if (buffer == null && !wal.waits()) {
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
  }

  /**
   * Flushed position: what Kafka acknowledged, or everything received when nothing is outstanding.
   */
  private long report(PGReplicationStream stream, TransactionPipeline pipeline, long reported)
      throws SQLException {
    metrics.sample(pipeline);
    long ack = acknowledged.get();
    long flush = ack;
    if (pipeline.idle() && queue.isEmpty() && ack >= handover.published()) {
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
}
