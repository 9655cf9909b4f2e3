package io.trellara.source.engine;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The hand-over between the capture thread and the publisher, bounded by records and by bytes so a burst of
 * large chunks cannot fill the heap. One record larger than the byte bound is still admitted when the queue
 * is empty (it is already in memory; refusing it would stall forever).
 */
final class OutboundQueue {
    private final int maxRecords;
    private final long maxBytes;
    private final ArrayDeque<Outbound> items = new ArrayDeque<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notFull = lock.newCondition();
    private final Condition notEmpty = lock.newCondition();
    private long bytes;

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
                nanos = notFull.awaitNanos(nanos);
            }
            items.addLast(o);
            bytes += o.bytes();
            notEmpty.signal();
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
            notFull.signalAll();
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
