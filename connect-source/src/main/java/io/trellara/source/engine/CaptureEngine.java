package io.trellara.source.engine;

import io.trellara.source.pgoutput.PgOutputMessage;
import io.trellara.source.pgoutput.PgOutputParser;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
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

/**
 * Owns the replication stream on one thread: reads pgoutput, feeds the transaction pipeline, hands the
 * records of committed transactions to the publisher through a queue bounded by records and bytes, answers keepalives, and reports as flushed only what
 * the publisher has acknowledged (Kafka holds it) — or, when nothing is in flight or unacknowledged, the
 * position of the last message received, so an idle slot still advances.
 */
public final class CaptureEngine implements AutoCloseable {
    private final SourceSettings settings;
    private final long startLsn;
    private final Function<Consumer<Outbound>, TransactionPipeline> pipelineFactory;
    private final OutboundQueue queue;
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong published = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final CaptureMetrics metrics = new CaptureMetrics();
    private volatile boolean running;
    private Thread thread;
    private PGReplicationStream stream; // touched by the capture thread only

    public CaptureEngine(SourceSettings settings, long startLsn,
                         Function<Consumer<Outbound>, TransactionPipeline> pipelineFactory) {
        this.settings = settings;
        this.startLsn = startLsn;
        this.pipelineFactory = pipelineFactory;
        this.queue = new OutboundQueue(settings.queueMaxRecords(), settings.queueMaxBytes());
    }

    public void start() {
        running = true;
        thread = new Thread(this::run, "trellara-capture-" + settings.slotName());
        thread.setDaemon(true);
        thread.start();
    }

    /** Records of committed transactions in publication order; waits up to {@code timeoutMs} for the first. */
    public List<Outbound> poll(long timeoutMs) throws InterruptedException {
        rethrowFailure();
        List<Outbound> out = new ArrayList<>();
        queue.drainTo(out, timeoutMs);
        rethrowFailure();
        return out;
    }

    /** Kafka holds every transaction up to this commit-record end: PostgreSQL may discard WAL before it. */
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

    private void rethrowFailure() {
        Throwable t = failure.get();
        if (t != null) {
            throw new CaptureFailedException("capture of slot " + settings.slotName() + " stopped: " + t.getMessage(), t);
        }
    }

    private void run() {
        try (Connection connection = settings.endpoint().connectForReplication();
             TransactionPipeline pipeline = pipelineFactory.apply(this::publish)) {
            stream = open(connection);
            PgOutputParser parser = new PgOutputParser(settings.protocolVersion());
            long reported = 0;
            long lastStatus = System.nanoTime();
            while (running) {
                ByteBuffer buffer = stream.readPending();
                if (buffer != null) {
                    PgOutputMessage message = parser.parse(buffer);
                    metrics.messages.incrementAndGet();
                    pipeline.accept(message, buffer, stream.getLastReceiveLSN().asLong());
                } else {
                    LockSupport.parkNanos(200_000);
                }
                long now = System.nanoTime();
                if (buffer == null || now - lastStatus > settings.statusIntervalMs() * 1_000_000L) {
                    reported = report(stream, pipeline, reported);
                    lastStatus = now;
                }
            }
            stream.close();
        } catch (Throwable t) {
            if (running) {
                failure.set(t);
            }
        }
    }

    private PGReplicationStream open(Connection connection) throws SQLException {
        var builder = connection.unwrap(PGConnection.class).getReplicationAPI().replicationStream().logical()
                .withSlotName(settings.slotName())
                .withSlotOption("proto_version", Integer.toString(settings.protocolVersion()))
                .withSlotOption("publication_names", PgNames.publicationNamesOption(settings.publicationName()))
                .withSlotOption("messages", "true")
                .withStatusInterval((int) settings.statusIntervalMs(), TimeUnit.MILLISECONDS);
        if (settings.protocolVersion() >= 2 && settings.streaming()) {
            builder.withSlotOption("streaming", "on");
        }
        if (startLsn != 0) {
            builder.withStartPosition(LogSequenceNumber.valueOf(startLsn));
        }
        return builder.start();
    }

    /** Flushed position: what Kafka acknowledged, or everything received when nothing is outstanding. */
    private long report(PGReplicationStream stream, TransactionPipeline pipeline, long reported) throws SQLException {
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
        if (record.closesTransaction()) {
            published.accumulateAndGet(record.endLsn(), Math::max);
            metrics.transactions.incrementAndGet();
            metrics.events.addAndGet(record.counts().sourceTotal());
        }
        try {
            while (running && !queue.offer(record, 500)) {
                stream.forceUpdateStatus(); // still alive: keep wal_sender_timeout from closing the stream
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot send a status update while waiting for the publisher", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while handing over a transaction", e);
        }
    }

    @Override
    public void close() {
        running = false;
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
