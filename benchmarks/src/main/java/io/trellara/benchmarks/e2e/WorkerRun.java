package io.trellara.benchmarks.e2e;

import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectWorker;
import io.trellara.testplatform.ConnectWorkerProcess;
import io.trellara.testplatform.KafkaBroker;
import java.io.File;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.StringJoiner;

/**
 * A benchmark run's Connect worker: in this JVM (default), or with {@code -Dbench.worker=process}
 * in a JVM of its own, as the reference deployment runs it, so that its CPU is measured
 * apart from the broker's and the workload's. {@code -Dbench.worker.jvmArgs="..."} adds options to
 * its JVM, {@code -Dbench.worker.exactly_once=true} starts it with {@code
 * exactly.once.source.support=enabled}. Shared by {@link EndToEndBenchmark} and the re-snapshot
 * benchmark.
 */
public record WorkerRun(ConnectWorker inJvm, ConnectWorkerProcess process) {

  /** A worker of group {@code bench}; with {@code debezium}, Debezium's plugin path. */
  public static WorkerRun start(KafkaBroker broker, boolean debezium) {
    ConnectWorker.Builder builder = ConnectWorker.builder(broker).groupId("bench");
    if (debezium) { // Debezium's plugin archives, each in a class loader of its own
      builder.pluginPath(DebeziumLeg.pluginPath());
    }
    if (Boolean.getBoolean("bench.worker.exactly_once")) {
      // KIP-618 on the worker; the source also needs -Dbench.source.extra=
      // exactly.once.support=required,transaction.boundary=connector (docs/operations.md)
      builder.exactlyOnceSource();
    }
    if (!"process".equals(System.getProperty("bench.worker"))) {
      return new WorkerRun(builder.build().start(), null);
    }
    if (System.getProperty(ConnectWorkerProcess.CLASS_PATH_PROPERTY) == null
        && WorkerRun.class.getClassLoader() instanceof URLClassLoader loader) {
      // mvn exec:java: this class path is Maven's; the worker needs the one this program was
      // loaded from
      StringJoiner path = new StringJoiner(File.pathSeparator);
      for (URL url : loader.getURLs()) {
        path.add(new File(URI.create(url.toString())).getPath());
      }
      System.setProperty(ConnectWorkerProcess.CLASS_PATH_PROPERTY, path.toString());
    }
    for (String arg : System.getProperty("bench.worker.jvmArgs", "").split(" ")) {
      if (!arg.isBlank()) { // e.g. -XX:StartFlightRecording=filename=worker.jfr,settings=profile
        builder.jvmArg(arg);
      }
    }
    return new WorkerRun(null, builder.buildProcess().start());
  }

  public ConnectRestClient rest() {
    return inJvm != null ? inJvm.rest() : process.rest();
  }

  /** The worker's threads' CPU by role, or null when it shares this JVM. */
  public WorkerThreads threads() {
    return inJvm != null ? null : new WorkerThreads(process.pid());
  }

  /** CPU the worker's own JVM used so far; -1 when it shares this JVM. */
  public long cpuNanos() {
    return inJvm != null ? -1 : process.cpuNanos();
  }

  /** The worker process's log (its connectors' INFO lines), or null when it shares this JVM. */
  public Path logFile() {
    return inJvm != null ? null : process.logFile();
  }

  public String where() {
    return inJvm != null ? "in this JVM" : "in its own JVM, " + process.restUrl();
  }

  public void stop() {
    if (inJvm != null) {
      inJvm.stop();
    } else {
      process.close();
    }
  }
}
