package io.trellara.source.replication;

import io.trellara.connect.common.Ticker;
import io.trellara.connect.common.liveness.Stage;
import io.trellara.connect.common.liveness.Stall;
import io.trellara.connect.common.liveness.Watchdog;
import io.trellara.protocol.Lsn;
import java.util.function.Consumer;

/**
 * The replication stream's liveness: while a stream is open the capture thread waits for the
 * server, and every message it receives is progress, keepalives included. An idle walsender sends
 * nothing while the task's status updates keep up with it, so a stream quiet for {@link #probeDue a
 * probe interval} sends a status update that asks for a reply (pgjdbc's {@code forceUpdateStatus}),
 * which the walsender answers with a keepalive at once: a stream that stays silent past the
 * watchdog's bound is a server (or network) that stopped answering. Waiting for the publisher (the
 * queue full) is not the server's silence. Written by the capture thread; the stall handler runs on
 * the watchdog's.
 */
final class StreamLiveness {
  /** The stage's name in JMX and in a {@code STALLED} failure. */
  static final String STAGE = "replication stream";

  /** Probes at most this often, and at least four times per bound. */
  static final long MAX_PROBE_NANOS = 10_000_000_000L;

  private final Stage stage;
  private final Ticker ticker;
  private final long probeNanos;
  private final String waitingFor;
  private volatile long lastLsn;
  private long lastHeard;

  /**
   * @param onStall runs on the watchdog's thread with the stall and the last LSN received: it must
   *     wake the capture thread (close its connection)
   */
  StreamLiveness(Watchdog watchdog, Ticker ticker, String slot, Consumer<Stall> onStall) {
    this.ticker = ticker;
    this.stage = watchdog.stage(STAGE, onStall::accept);
    long bound = watchdog.bound().toNanos();
    this.probeNanos = Math.max(1_000_000L, Math.min(MAX_PROBE_NANOS, bound / 4));
    this.waitingFor = "messages from the server on the replication stream of slot " + slot;
  }

  /** A stream is open (or being opened): the bound runs. */
  void streaming() {
    stage.waiting(waitingFor);
    lastHeard = ticker.nanos();
  }

  /** A message arrived (data or keepalive); {@code lsn} the stream's last received position. */
  void received(long lsn) {
    stage.progress();
    lastHeard = ticker.nanos();
    if (lsn > lastLsn) {
      lastLsn = lsn;
    }
  }

  /** The capture thread waits for the publisher (the queue is full), not for the server. */
  void handingOver() {
    stage.progress();
    lastHeard = ticker.nanos();
  }

  /**
   * True when the stream has been quiet for the probe interval since it last heard from the server
   * (or was last probed): the caller then asks the server for a reply.
   */
  boolean probeDue() {
    long now = ticker.nanos();
    if (now - lastHeard < probeNanos) {
      return false;
    }
    lastHeard = now;
    return true;
  }

  /** No stream (closed, or waiting to reconnect: the reconnect deadline bounds that). */
  void stopped() {
    stage.idle();
  }

  /** The last position received, for the {@code STALLED} message. */
  String lastLsn() {
    return lastLsn == 0 ? "none yet" : Lsn.format(lastLsn);
  }

  Stage stage() {
    return stage;
  }
}
