package io.trellara.source.engine;

/**
 * When to try the replication connection again: {@value #INITIAL_DELAY_MS} ms after a loss, doubling up to
 * {@value #MAX_DELAY_MS} ms, until {@code maxDurationMs} have passed since the outage began; then the engine
 * gives up. An outage ends only once a new stream has stayed up for {@value #STABLE_MS} ms: a stream that opens
 * and breaks again at once (a flapping server, a slot still held by the old walsender) continues the same
 * outage, so its delays keep growing and its deadline holds. Not thread-safe (the capture thread's).
 */
final class ReconnectBackoff {
    static final long INITIAL_DELAY_MS = 500;
    static final long MAX_DELAY_MS = 30_000;
    static final long STABLE_MS = 30_000;

    private final long maxDurationMs;
    private long outageStartMs = -1;
    private long connectedAtMs = -1;
    private int failures;

    ReconnectBackoff(long maxDurationMs) {
        this.maxDurationMs = maxDurationMs;
    }

    /**
     * The connection was lost (or an attempt failed) at {@code nowMs}: the delay before the next attempt, or
     * -1 when the outage has lasted {@code maxDurationMs} and the engine must give up.
     */
    long lost(long nowMs) {
        if (outageStartMs < 0 || (connectedAtMs >= 0 && nowMs - connectedAtMs >= STABLE_MS)) {
            outageStartMs = nowMs; // a new outage
            failures = 0;
        }
        connectedAtMs = -1;
        long elapsed = nowMs - outageStartMs;
        if (elapsed >= maxDurationMs) {
            return -1;
        }
        long delay = failures >= 16 ? MAX_DELAY_MS : Math.min(MAX_DELAY_MS, INITIAL_DELAY_MS << failures);
        failures++;
        return Math.min(delay, maxDurationMs - elapsed); // the last attempt happens at the deadline
    }

    /** A stream is open again at {@code nowMs}. */
    void connected(long nowMs) {
        connectedAtMs = nowMs;
    }

    /** When the current outage began; -1 when none has. */
    long outageStartMs() {
        return outageStartMs;
    }
}
