package io.trellara.source.replication;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The hand-over between the capture thread and the publisher, bounded by records and by bytes so a
 * burst of large chunks cannot fill the heap. One record larger than the byte bound is still
 * admitted when the queue is empty (it is already in memory; refusing it would stall forever).
 *
 * <p>The publisher is woken once a transaction is whole (its closing record), not for each of its
 * records: a small chunked or partitioned transaction is up to a chunk per lane, a manifest and a
 * marker, all handed over within microseconds, and waking the publisher for each costs a thread
 * wake-up and a Connect poll round with a producer send of one record. Records of a large
 * transaction (or snapshot) still wake it as they come, once {@link #WAKE_BYTES} or {@link
 * #WAKE_RECORDS} are waiting or the queue is full, so publishing overlaps capture.
 */
final class OutboundQueue {
  /** Bytes of records before their transaction's close that wake the publisher. */
  static final long WAKE_BYTES = 64 * 1024;

  /** Records before their transaction's close that wake the publisher. */
  static final int WAKE_RECORDS = 64;

  private final int maxRecords;
  private final long maxBytes;
  private final ArrayDeque<Outbound> items = new ArrayDeque<>();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition notFull = lock.newCondition();
  private final Condition notEmpty = lock.newCondition();
  private long bytes;

  /** Records and bytes queued since the publisher was last woken. */
  private int quietRecords;

  private long quietBytes;
  private long wakeUps;

  OutboundQueue(int maxRecords, long maxBytes) {
    this.maxRecords = Math.max(1, maxRecords);
    this.maxBytes = Math.max(1, maxBytes);
  }

  /** Waits up to {@code timeoutMs} for room; false when there was none. */
  boolean offer(Outbound o, long timeoutMs) throws InterruptedException {
    long nanos = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    lock.lockInterruptibly();
    try {
      while (!items.isEmpty() && (items.size() >= maxRecords || bytes + o.bytes() > maxBytes)) {
        if (nanos <= 0) {
          return false;
        }
        wake(); // full: whatever is queued must go before there is room
        nanos = notFull.awaitNanos(nanos);
      }
      items.addLast(o);
      bytes += o.bytes();
      quietRecords++;
      quietBytes += o.bytes();
      if (o.closesTransaction() || quietRecords >= WAKE_RECORDS || quietBytes >= WAKE_BYTES) {
        wake();
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Moves every queued record to {@code out}, waiting up to {@code timeoutMs} for the first. */
  void drainTo(List<Outbound> out, long timeoutMs) throws InterruptedException {
    long nanos = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    lock.lockInterruptibly();
    try {
      while (items.isEmpty()) {
        if (nanos <= 0) {
          return;
        }
        nanos = notEmpty.awaitNanos(nanos);
      }
      out.addAll(items);
      items.clear();
      bytes = 0;
      quietRecords = 0;
      quietBytes = 0;
      notFull.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void wake() {
    if (quietRecords > 0) {
      quietRecords = 0;
      quietBytes = 0;
      wakeUps++;
      notEmpty.signal();
    }
  }

  /** How often the publisher was woken (tests). */
  long wakeUps() {
    lock.lock();
    try {
      return wakeUps;
    } finally {
      lock.unlock();
    }
  }

  boolean isEmpty() {
    lock.lock();
    try {
      return items.isEmpty();
    } finally {
      lock.unlock();
    }
  }

  int size() {
    lock.lock();
    try {
      return items.size();
    } finally {
      lock.unlock();
    }
  }

  long bytes() {
    lock.lock();
    try {
      return bytes;
    } finally {
      lock.unlock();
    }
  }
}
