package io.trellara.quickstart;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * Samples the pipeline's {@link Progress}: every 2 s during the workload and the catch-up, then,
 * while the quickstart keeps running, a line whenever something new was captured or applied.
 */
final class Monitor implements AutoCloseable {

  private final Stack stack;
  private final RunNames names;
  private final ConsoleReport report;
  private ScheduledExecutorService periodic;
  private volatile boolean printing;
  private volatile boolean closed;

  Monitor(Stack stack, RunNames names, ConsoleReport report) {
    this.stack = stack;
    this.names = names;
    this.report = report;
  }

  Progress progress() {
    Db target = stack.target();
    long applied = 0;
    long latency = -1;
    try {
      applied =
          target.queryLong(
              "SELECT count(*) FROM trellara_sink.applied_transactions WHERE source_id = '"
                  + names.sourceId()
                  + "'");
      if (applied > 0) {
        latency =
            target.queryLong(
                "SELECT round(extract(epoch FROM applied_at - commit_timestamp) * 1000)"
                    + " FROM trellara_sink.applied_transactions WHERE source_id = '"
                    + names.sourceId()
                    + "' ORDER BY commit_lsn_value DESC LIMIT 1");
      }
    } catch (RuntimeException e) {
      // trellara_sink is created by the sink's first task
    }
    long captured = captured();
    long wal =
        stack
            .source()
            .queryLong(
                "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)"
                    + " FROM pg_replication_slots WHERE slot_name = '"
                    + names.slot()
                    + "'");
    return new Progress(captured, applied, wal, latency);
  }

  /**
   * Source transactions published: the source task's {@code TransactionsCaptured} (the worker runs
   * in this JVM), which counts the initial snapshot once although it travels as several records;
   * the topic's end offset (a record per transaction) while the task's bean is not there yet.
   */
  private long captured() {
    try {
      ObjectName bean =
          new ObjectName(
              "io.trellara:type=source-task,connector=" + Deployment.SOURCE_CONNECTOR + ",task=0");
      return (Long)
          ManagementFactory.getPlatformMBeanServer().getAttribute(bean, "TransactionsCaptured");
    } catch (Exception e) {
      return endOffset();
    }
  }

  private long endOffset() {
    TopicPartition tp = new TopicPartition(names.topic(), 0);
    try {
      return stack
          .admin()
          .listOffsets(Map.of(tp, OffsetSpec.latest()))
          .partitionResult(tp)
          .get(10, TimeUnit.SECONDS)
          .offset();
    } catch (Exception e) {
      return -1;
    }
  }

  /** A progress line every 2 s until {@link #stopPrinting()}. */
  synchronized void startPrinting() {
    if (closed) {
      return;
    }
    periodic =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "trellara-quickstart-progress");
              t.setDaemon(true);
              return t;
            });
    printing = true;
    periodic.scheduleWithFixedDelay(
        () -> {
          if (printing && !closed) {
            try {
              report.step("  progress: " + progress().line());
            } catch (RuntimeException e) {
              // a progress line is not worth an error
            }
          }
        },
        2,
        2,
        TimeUnit.SECONDS);
  }

  void stopPrinting() {
    printing = false;
  }

  /** Until {@link #close()}: a progress line whenever the captured or applied count changed. */
  void watchUntilClosed() {
    Progress last = null;
    while (!closed) {
      try {
        Thread.sleep(1000);
        Progress p = progress();
        if (last != null && (p.captured() != last.captured() || p.applied() != last.applied())) {
          report.step(p.line());
        }
        last = p;
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        // shutting down, or a server is briefly unavailable
      }
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    printing = false;
    if (periodic != null) {
      periodic.shutdownNow();
    }
  }
}
