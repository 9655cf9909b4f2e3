package io.trellara.source.engine;

import java.util.concurrent.atomic.AtomicLong;

/** Counters the capture thread keeps; the Connect adapter exposes them. */
public final class CaptureMetrics {
    final AtomicLong messages = new AtomicLong();
    final AtomicLong transactions = new AtomicLong();
    final AtomicLong events = new AtomicLong();
    final AtomicLong confirmedFlushLsn = new AtomicLong();

    public long messages() {
        return messages.get();
    }

    public long transactions() {
        return transactions.get();
    }

    public long events() {
        return events.get();
    }

    public long confirmedFlushLsn() {
        return confirmedFlushLsn.get();
    }
}
