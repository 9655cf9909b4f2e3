package io.trellara.source.replication;

import io.trellara.connect.common.Ticker;
import io.trellara.connect.common.liveness.StalledException;
import io.trellara.connect.common.retry.Backoff;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The capture thread's streaming, across connections: a lost replication connection ({@link
 * ReplicationErrors}) is not a failure: a new stream is opened after a growing delay ({@link
 * ReconnectPolicy}, connect-common's Backoff) until {@code reconnectMaxDurationMs} have passed,
 * then capture fails with the last cause. A stall, a close or any other error ends it at once.
 *
 * <p>Why a reconnect is safe. The new stream starts at max(start position, acknowledged); the
 * server resumes at max(that, the slot's confirmed_flush_lsn), which the engine never moved past
 * what Kafka acknowledged except when everything published was acknowledged and nothing was in
 * flight (see {@link StreamSession}). So every transaction that is not wholly acknowledged is sent
 * again from its Begin, and the pipeline is recreated (the old one closed: its in-flight and
 * streamed transactions and their spill files are dropped) so it rebuilds each one from its start.
 * Records already queued stay queued: a re-sent transaction becomes a duplicate, which the sink
 * absorbs by transaction identity.
 *
 * <p>Acknowledgement with duplicates. Each pipeline's records get sequences after the previous
 * pipeline's ({@link Handover#numbered}), so the task's AckTracker sees a duplicate as one more
 * transaction in hand-over order, and releases an end LSN only when that copy and every record
 * handed out before it are acknowledged. The acknowledged and published positions are maxima: a
 * duplicate's end LSN is at most what was published before, so neither moves back, and the idle
 * flush still waits for Kafka to hold the newest transaction ever handed over. A transaction is
 * handed over whole or not at all while the engine runs (the hand-over keeps waiting for the queue
 * when the connection breaks under it), so no half-published transaction blocks the tracker. The
 * slot is therefore never flushed past a transaction Kafka does not hold. Connect's source offset
 * may step back to a duplicate's end LSN for a while: a restart then resumes earlier, never later.
 */
final class ReconnectingStream {
  private static final Logger LOG = LoggerFactory.getLogger(ReconnectingStream.class);
  static final String RECONNECT_SETTING = "replication.reconnect.max.duration.ms";

  private final SourceSettings settings;
  private final StreamSession session;
  private final CaptureMetrics metrics;
  private final BooleanSupplier running;
  private final LongPredicate pause;
  private final Ticker ticker;

  /**
   * @param pause waits out a delay in milliseconds; false when the engine closed meanwhile
   * @param ticker the backoff's clock
   */
  ReconnectingStream(
      SourceSettings settings,
      StreamSession session,
      CaptureMetrics metrics,
      BooleanSupplier running,
      LongPredicate pause,
      Ticker ticker) {
    this.settings = settings;
    this.session = session;
    this.metrics = metrics;
    this.running = running;
    this.pause = pause;
    this.ticker = ticker;
  }

  /**
   * Streams until closed or failed.
   *
   * @param from where each stream starts
   * @param stall the STALLED failure for what ended a stream, null when no stage stalled
   * @param fail records the failure capture ends with
   */
  void run(
      LongSupplier from, Function<Throwable, StalledException> stall, Consumer<Throwable> fail) {
    Backoff backoff = ReconnectPolicy.backoff(settings.reconnectMaxDurationMs(), ticker);
    boolean reconnecting = false;
    while (running.getAsBoolean()) {
      try {
        session.run(from.getAsLong(), reconnecting, backoff::connected);
        return; // closed
      } catch (Throwable t) {
        StalledException stalled = stall.apply(t);
        if (stalled != null) {
          fail.accept(stalled);
          return;
        }
        if (!running.getAsBoolean()) {
          return; // close() broke the connection
        }
        if (!ReplicationErrors.isConnectionLoss(t)) {
          fail.accept(t);
          return;
        }
        metrics.disconnected(t, System.currentTimeMillis());
        long delay = ReconnectPolicy.nextDelayMillis(backoff);
        if (delay < 0) {
          LOG.error(
              "Replication connection of slot {} lost and not regained within {} ms ({}={});"
                  + " the task fails with the last cause: {}",
              settings.slotName(),
              backoff.outageMillis(),
              RECONNECT_SETTING,
              settings.reconnectMaxDurationMs(),
              t.toString());
          fail.accept(t);
          return;
        }
        if (backoff.worthLogging()) {
          LOG.warn(
              "Replication connection of slot {} lost: {}; reconnecting in {} ms (outage {} ms so"
                  + " far, giving up after {} ms)",
              settings.slotName(),
              describe(t),
              delay,
              backoff.outageMillis(),
              settings.reconnectMaxDurationMs());
        }
        reconnecting = true;
        if (!pause.test(delay)) {
          return;
        }
      }
    }
  }

  /** An error and its causes, for a log line (at most about 600 characters). */
  static String describe(Throwable t) {
    StringBuilder b = new StringBuilder(t.toString());
    for (Throwable c = t.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      b.append(" (caused by ").append(c).append(')');
      if (b.length() > 600) {
        break;
      }
    }
    return b.toString();
  }
}
