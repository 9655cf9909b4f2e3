package io.trellara.benchmarks.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Connect worker JVM's CPU by what its threads do, read from the JVM's own thread dump ({@code
 * jcmd <pid> Thread.print} lists every thread's {@code cpu=} since JDK 17, the JIT's and the GC's
 * too): where a transaction's CPU goes in the worker, thread by thread, in every run. Threads that
 * ended between two reads are not counted.
 */
public final class WorkerThreads {
  public static final String JIT = "JIT";
  public static final List<String> ROLES =
      List.of("capture", "source task", "producer", "sink task", JIT, "GC", "other");
  private static final Pattern THREAD =
      Pattern.compile("^\"(.*)\" .*?\\bcpu=([0-9.]+)ms.*?\\bnid=(\\w+)", Pattern.MULTILINE);

  private final long pid;

  public WorkerThreads(long pid) {
    this.pid = pid;
  }

  /**
   * CPU milliseconds so far of each live thread, by its name and native id; empty when the dump
   * cannot be read.
   */
  public Map<String, Double> cpuMillis() {
    try {
      Process p =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                  Long.toString(pid),
                  "Thread.print")
              .redirectErrorStream(true)
              .start();
      String dump = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        return Map.of();
      }
      return byThread(dump);
    } catch (IOException e) {
      return Map.of();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Map.of();
    }
  }

  /**
   * Each thread's CPU milliseconds, keyed {@code name|nid} (a name may repeat; a native id is
   * reused).
   */
  static Map<String, Double> byThread(String dump) {
    Map<String, Double> out = new LinkedHashMap<>();
    Matcher m = THREAD.matcher(dump);
    while (m.find()) {
      out.merge(m.group(1) + "|" + m.group(3), Double.parseDouble(m.group(2)), Double::sum);
    }
    return out;
  }

  /**
   * CPU milliseconds by role, in {@link #ROLES} order, used between two reads: each thread's
   * growth, and all of a thread that started in between. A thread that ended in between is not
   * counted.
   */
  public static Map<String, Double> byRole(Map<String, Double> before, Map<String, Double> after) {
    Map<String, Double> out = new LinkedHashMap<>();
    ROLES.forEach(r -> out.put(r, 0.0));
    after.forEach(
        (thread, ms) ->
            out.merge(
                role(thread.substring(0, thread.lastIndexOf('|'))),
                ms - before.getOrDefault(thread, 0.0),
                Double::sum));
    return out;
  }

  /**
   * The benchmark's connectors are named bench-{mode}-source and bench-{mode}-sink; Debezium's
   * source reads the WAL on its change event source coordinator thread, its capture.
   */
  static String role(String thread) {
    if (thread.startsWith("trellara-capture-")
        || (thread.startsWith("debezium-postgresconnector-")
            && thread.endsWith("-change-event-source-coordinator"))) {
      return "capture";
    }
    if (thread.startsWith("task-thread-")) {
      return thread.contains("-source-")
          ? "source task"
          : thread.contains("-sink-") ? "sink task" : "other";
    }
    if (thread.startsWith("kafka-producer-network-thread | connector-producer-")) {
      return "producer";
    }
    if (thread.startsWith("C1 CompilerThread") || thread.startsWith("C2 CompilerThread")) {
      return JIT;
    }
    if (thread.startsWith("GC Thread") || thread.startsWith("G1 ")) {
      return "GC";
    }
    return "other";
  }

  /**
   * {@link #byRole} as µs per transaction, one line; empty when there is nothing (a read failed).
   */
  static String perTransaction(Map<String, Double> byRole, int transactions) {
    if (byRole.isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    double total = 0;
    for (Map.Entry<String, Double> role : byRole.entrySet()) {
      double us = role.getValue() * 1000.0 / transactions;
      total += us;
      b.append(b.length() == 0 ? "" : ", ")
          .append(role.getKey())
          .append(String.format(Locale.ROOT, " %.1f", us));
    }
    return String.format(
        Locale.ROOT, "%.1f µs per transaction (%.1f per row): %s", total, total / 4, b);
  }
}
