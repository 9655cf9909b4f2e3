package io.trellara.source.replication;

import io.trellara.source.pg.WalWait;

/**
 * How long the capture thread pauses before it looks for WAL again, when {@link WalWait} cannot
 * wait on the socket (a pgjdbc without the field it peeks through). A replication stream's {@code
 * readPending()} already waits up to a millisecond on the socket and returns as soon as a message
 * arrives (pgjdbc gives replication connections a one-millisecond peek), so while messages flow, or
 * have flowed in the last {@value #QUIET_NANOS} ns, the thread does not pause at all: a transaction
 * is read the moment it arrives. Once the stream has been quiet that long, it pauses {@value
 * #QUIET_PAUSE_NANOS} ns between looks, so an idle slot costs about ninety looks a second instead
 * of a thousand (each look that finds nothing costs pgjdbc a socket timeout); the first transaction
 * after a quiet second is read at most 10 ms later. A stream that carries a transaction at least
 * every second never pauses. Pure: the caller passes the time.
 */
final class IdleWait {
  /** Quiet for this long (1 s): pause between looks. */
  static final long QUIET_NANOS = 1_000_000_000L;

  /** The pause once quiet (10 ms). */
  static final long QUIET_PAUSE_NANOS = 10_000_000L;

  private long lastMessage;

  IdleWait(long now) {
    lastMessage = now;
  }

  /** A message arrived. */
  void message(long now) {
    lastMessage = now;
  }

  /**
   * Nanoseconds to pause after a look that found nothing: 0 while the stream has been busy lately.
   */
  long pauseNanos(long now) {
    return now - lastMessage >= QUIET_NANOS ? QUIET_PAUSE_NANOS : 0;
  }
}
