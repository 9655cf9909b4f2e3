package io.trellara.benchmarks.e2e.floor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Hands Connect {@code transactions} transactions of {@code shape} at {@code rate} a second, as
 * Trellara's task hands over its capture thread's: a pacing thread ({@code floor-pacer}, the
 * benchmark's "other") queues each transaction's records when it is due, and each poll waits for
 * the queue and takes all it holds. A task that timed its own polls would pay a timer per poll,
 * which Trellara's task does not.
 */
public class FloorSourceTask extends org.apache.kafka.connect.source.SourceTask {
  private final LinkedBlockingQueue<List<SourceRecord>> queue = new LinkedBlockingQueue<>();
  private volatile boolean running;
  private Thread pacer;

  @Override
  public void start(Map<String, String> props) {
    FloorShape shape =
        new FloorShape(
            props.get("shape"),
            props.get("topic.strict"),
            props.get("topic.lanes"),
            Integer.parseInt(props.getOrDefault("lanes", "6")),
            props.get("name"));
    long transactions = Long.parseLong(props.get("transactions"));
    long interval = TimeUnit.SECONDS.toNanos(1) / Long.parseLong(props.get("rate"));
    running = true;
    pacer =
        new Thread(
            () -> {
              long start = System.nanoTime();
              for (long n = 1; n <= transactions && running; n++) {
                long wait = start + (n - 1) * interval - System.nanoTime();
                if (wait > 0) {
                  LockSupport.parkNanos(wait);
                }
                queue.add(
                    shape.transaction(
                        n)); // a whole transaction, as the capture thread hands one over
              }
            },
            "floor-pacer");
    pacer.start();
  }

  @Override
  public List<SourceRecord> poll() throws InterruptedException {
    List<SourceRecord> first = queue.poll(100, TimeUnit.MILLISECONDS);
    if (first == null) {
      return null;
    }
    List<SourceRecord> out = new ArrayList<>(first);
    for (List<SourceRecord> more = queue.poll(); more != null; more = queue.poll()) {
      out.addAll(more);
    }
    return out;
  }

  @Override
  public void stop() {
    running = false;
  }

  @Override
  public String version() {
    return "bench";
  }
}
