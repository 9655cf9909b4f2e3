package io.trellara.benchmarks.e2e;

import io.trellara.testplatform.KafkaBroker;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * When each stage of the Trellara pipeline first and last moved during the bulk transaction: the
 * records on the topics and the tasks' counters, read from their JMX beans in this JVM. The first
 * sample, taken before the transaction starts, is the baseline.
 */
final class Timeline implements Leg.Stages {
  private final KafkaBroker broker;
  private final List<String> topics;
  private final String sourceBean;
  private final String sinkBeanPrefix;
  private final int sinkTasks;
  private final Map<String, Stage> stages = new LinkedHashMap<>();
  private final MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();

  Timeline(
      KafkaBroker broker,
      List<String> topics,
      String sourceConnector,
      String sinkConnector,
      int sinkTasks) {
    this.broker = broker;
    this.topics = topics;
    this.sourceBean = "io.trellara:type=source-task,connector=" + sourceConnector + ",task=0";
    this.sinkBeanPrefix = "io.trellara:type=sink-task,connector=" + sinkConnector + ",task=";
    this.sinkTasks = sinkTasks;
  }

  @Override
  public void sample() {
    long records = 0;
    for (String topic : topics) {
      records += broker.endOffsets(topic).values().stream().mapToLong(Long::longValue).sum();
    }
    record("records on the topics", records);
    read(sourceBean, "source", "PgOutputMessages");
    read(sourceBean, "source", "TransactionsCaptured");
    read(sourceBean, "source", "TransactionsAcknowledged");
    for (int task = 0; task < sinkTasks; task++) {
      read(sinkBeanPrefix + task, "sink " + task, "ChunksStaged");
      read(sinkBeanPrefix + task, "sink " + task, "RowsInserted");
    }
  }

  private void read(String bean, String task, String attribute) {
    try {
      record(
          task + " " + attribute,
          ((Number) jmx.getAttribute(new ObjectName(bean), attribute)).longValue());
    } catch (Exception absent) {
      // the bean appears when the task starts
    }
  }

  private void record(String stage, long value) {
    stages.computeIfAbsent(stage, k -> new Stage(value)).observe(value, System.nanoTime());
  }

  @Override
  public void print(long committedNanos) {
    stages.forEach(
        (name, s) -> {
          if (s.moved) {
            System.out.printf(
                "  %-32s first moved %6.2f s, last moved %6.2f s after COMMIT, +%,d%n",
                name,
                (s.firstMoved - committedNanos) / 1e9,
                (s.lastMoved - committedNanos) / 1e9,
                s.value - s.baseline);
          }
        });
  }

  /**
   * One counter: its value at the first sample and when (System.nanoTime()) it first and last
   * changed.
   */
  private static final class Stage {
    final long baseline;
    long value;
    boolean moved;
    long firstMoved;
    long lastMoved;

    Stage(long baseline) {
      this.baseline = baseline;
      this.value = baseline;
    }

    void observe(long current, long at) {
      if (current != value) {
        if (!moved) {
          moved = true;
          firstMoved = at;
        }
        lastMoved = at;
        value = current;
      }
    }
  }
}
