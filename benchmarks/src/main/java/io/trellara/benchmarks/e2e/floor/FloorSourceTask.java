package io.trellara.benchmarks.e2e.floor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/**
 * Hands Connect {@code transactions} transactions of {@code shape} at {@code rate} a second: each poll waits until
 * the next one is due and returns all that are (as Trellara's task waits for its capture thread's next).
 */
public class FloorSourceTask extends SourceTask {
    private FloorShape shape;
    private long transactions;
    private long intervalNanos;
    private long start;
    private long sent;

    @Override
    public void start(Map<String, String> props) {
        shape = new FloorShape(props.get("shape"), props.get("topic.strict"), props.get("topic.lanes"),
                Integer.parseInt(props.getOrDefault("lanes", "6")), props.get("name"));
        transactions = Long.parseLong(props.get("transactions"));
        intervalNanos = TimeUnit.SECONDS.toNanos(1) / Long.parseLong(props.get("rate"));
        start = System.nanoTime();
    }

    @Override
    public List<SourceRecord> poll() {
        if (sent >= transactions) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            return null;
        }
        long wait = start + sent * intervalNanos - System.nanoTime(); // until the next one is due
        if (wait > 0) {
            LockSupport.parkNanos(wait);
        }
        long due = Math.min(transactions, (System.nanoTime() - start) / intervalNanos + 1);
        List<SourceRecord> out = new ArrayList<>();
        while (sent < due) {
            out.addAll(shape.transaction(++sent));
        }
        return out.isEmpty() ? null : out;
    }

    @Override
    public void stop() {
    }

    @Override
    public String version() {
        return "bench";
    }
}
