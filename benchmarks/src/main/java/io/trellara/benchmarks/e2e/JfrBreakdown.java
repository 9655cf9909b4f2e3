package io.trellara.benchmarks.e2e;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where the CPU of a benchmark run went, from a JFR recording ({@code
 * MAVEN_OPTS=-XX:StartFlightRecording= filename=run.jfr,settings=profile}): execution samples per
 * thread group (source task, capture, producer, sink task, consumer, broker, PostgreSQL client...),
 * and within each group the methods that were on the stack ("total") and on top ("self"), as shares
 * of all samples. Run it with {@code exec:java
 * -Dexec.mainClass=io.trellara.benchmarks.e2e.JfrBreakdown -Dexec.args="run.jfr [rows]"}, or with
 * nothing but the JDK: {@code java -cp benchmarks/target/classes
 * io.trellara.benchmarks.e2e.JfrBreakdown run.jfr}.
 */
public final class JfrBreakdown {
  /** A sample belongs to the first group one of whose classes is on its stack... */
  private static final List<Map.Entry<String, String>> BY_FRAME =
      List.of(
          Map.entry("capture", "io.trellara.source.replication.CaptureEngine"),
          Map.entry("source task", "org.apache.kafka.connect.runtime.AbstractWorkerSourceTask"),
          Map.entry("sink task", "org.apache.kafka.connect.runtime.WorkerSinkTask"),
          Map.entry("benchmark driver", "io.trellara.benchmarks."));

  /** ...or else to the first whose name its thread's contains. */
  private static final List<Map.Entry<String, String>> BY_THREAD =
      List.of(
          Map.entry("producer", "kafka-producer-network-thread"),
          Map.entry("broker", "data-plane"),
          Map.entry("broker", "kafka-"),
          Map.entry("broker", "raft"),
          Map.entry("broker", "broker-"),
          Map.entry("broker", "controller-"));

  private JfrBreakdown() {}

  public static void main(String[] args) throws Exception {
    int rows = args.length > 1 ? Integer.parseInt(args[1]) : 15;
    Map<String, Long> groups = new HashMap<>();
    Map<String, Map<String, Long>> total = new HashMap<>();
    Map<String, Map<String, Long>> self = new HashMap<>();
    long samples = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(Path.of(args[0]))) {
      if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
        continue;
      }
      RecordedThread thread = e.getThread("sampledThread");
      RecordedStackTrace stack = e.getStackTrace();
      if (stack == null || stack.getFrames().isEmpty()) {
        continue;
      }
      String group = group(thread == null ? "" : thread.getJavaName(), stack.getFrames());
      samples++;
      groups.merge(group, 1L, Long::sum);
      List<RecordedFrame> frames = stack.getFrames();
      self.computeIfAbsent(group, g -> new HashMap<>()).merge(method(frames.get(0)), 1L, Long::sum);
      Set<String> seen = new HashSet<>();
      for (RecordedFrame f : frames) {
        String m = method(f);
        if (m.startsWith("io.trellara.") && seen.add(m)) {
          total.computeIfAbsent(group, g -> new HashMap<>()).merge(m, 1L, Long::sum);
        }
      }
    }
    System.out.printf(Locale.ROOT, "%,d execution samples%n", samples);
    long all = samples;
    top(groups, rows)
        .forEach(
            g -> {
              System.out.printf(
                  Locale.ROOT, "%n## %s: %.1f %% of samples%n", g, 100.0 * groups.get(g) / all);
              System.out.println("self (top frame):");
              print(self.getOrDefault(g, Map.of()), groups.get(g), rows);
              System.out.println("total (Trellara frames on the stack):");
              print(total.getOrDefault(g, Map.of()), groups.get(g), rows);
            });
  }

  private static String group(String thread, List<RecordedFrame> frames) {
    for (Map.Entry<String, String> g : BY_FRAME) {
      for (RecordedFrame f : frames) {
        if (f.getMethod().getType().getName().startsWith(g.getValue())) {
          return g.getKey();
        }
      }
    }
    for (Map.Entry<String, String> g : BY_THREAD) {
      if (thread.contains(g.getValue())) {
        return g.getKey();
      }
    }
    return "other (" + thread.replaceAll("[0-9]+", "N") + ")";
  }

  private static String method(RecordedFrame f) {
    return f.getMethod().getType().getName() + "." + f.getMethod().getName();
  }

  private static void print(Map<String, Long> counts, long of, int rows) {
    top(counts, rows)
        .forEach(
            m -> System.out.printf(Locale.ROOT, "  %5.1f %%  %s%n", 100.0 * counts.get(m) / of, m));
  }

  private static List<String> top(Map<String, Long> counts, int rows) {
    return counts.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(rows)
        .map(Map.Entry::getKey)
        .toList();
  }
}
