package io.trellara.testplatform;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A distributed Connect worker in its own JVM ({@code
 * org.apache.kafka.connect.cli.ConnectDistributed} with this JVM's class path), for what an in-JVM
 * worker cannot do: {@link #kill()} ({@code kill -9}: no task stop, no offset flush, the group
 * member times out) and its own heap limit ({@code jvmArg("-Xmx256m")}). Built from {@link
 * ConnectWorker.Builder#buildProcess()}, so the worker properties are the same; the REST port is
 * kept across restarts. Output goes to {@link #logFile()}.
 */
public final class ConnectWorkerProcess implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ConnectWorkerProcess.class);

  /**
   * The worker JVM's class path when this JVM's own is not the one its code was loaded from (a
   * program run by {@code mvn exec:java}, whose {@code java.class.path} is Maven's launcher);
   * default {@code java.class.path}.
   */
  public static final String CLASS_PATH_PROPERTY = "trellara.worker.classpath";

  private final Map<String, String> properties;
  private final List<String> jvmArgs;
  private final int restPort;
  private final Path workDir;
  private Process process;

  ConnectWorkerProcess(ConnectWorker.Builder builder) {
    this.restPort = builder.restPort > 0 ? builder.restPort : FreePorts.next();
    this.properties = ConnectWorker.workerProperties(builder, restPort);
    this.jvmArgs = List.copyOf(builder.jvmArgs);
    try {
      this.workDir = Files.createTempDirectory("trellara-connect-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a directory for the worker process", e);
    }
  }

  /**
   * Launches the JVM and waits until the REST API answers; fails with the log tail if the JVM dies.
   */
  public synchronized ConnectWorkerProcess start() {
    if (process != null && process.isAlive()) {
      return this;
    }
    long started = System.nanoTime();
    Path propsFile = workDir.resolve("worker.properties");
    Properties props = new Properties();
    props.putAll(properties);
    try (OutputStream out = Files.newOutputStream(propsFile)) {
      props.store(out, "trellara test worker");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + propsFile, e);
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmArgs);
    command.add("-Duser.timezone=" + java.util.TimeZone.getDefault().getID());
    command.add("-cp");
    command.add(System.getProperty(CLASS_PATH_PROPERTY, System.getProperty("java.class.path")));
    command.add("org.apache.kafka.connect.cli.ConnectDistributed");
    command.add(propsFile.toString());
    try {
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot launch the worker JVM", e);
    }
    Process launched = process;
    ConnectRestClient rest = rest();
    await("worker process REST at " + restUrl())
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              if (!launched.isAlive()) {
                throw new IllegalStateException(
                    "worker JVM exited with " + launched.exitValue() + "; log tail:\n" + logTail());
              }
              return rest.isReady();
            });
    LOG.info(
        "Connect worker process {} (pid {}) up at {} in {} ms",
        properties.get("group.id"),
        launched.pid(),
        restUrl(),
        (System.nanoTime() - started) / 1_000_000);
    return this;
  }

  /** SIGKILL: the worker vanishes mid-stream, exactly like {@code kill -9}. */
  public synchronized void kill() {
    if (process != null) {
      process.destroyForcibly();
      waitFor(process);
      process = null;
    }
  }

  /** SIGTERM: Connect's shutdown hook stops tasks and flushes offsets. */
  public synchronized void stop() {
    if (process != null) {
      process.destroy();
      waitFor(process);
      process = null;
    }
  }

  public ConnectWorkerProcess restart() {
    stop();
    return start();
  }

  private static void waitFor(Process p) {
    try {
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while stopping the worker process", e);
    }
  }

  /**
   * CPU time the worker JVM has used since it started (user and system), or -1 when not running or
   * unknown.
   */
  /** The worker JVM's process id, or -1 before it started. */
  public synchronized long pid() {
    return process == null ? -1 : process.pid();
  }

  public synchronized long cpuNanos() {
    if (process == null) {
      return -1;
    }
    return process
        .toHandle()
        .info()
        .totalCpuDuration()
        .map(java.time.Duration::toNanos)
        .orElse(-1L);
  }

  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  public URI restUrl() {
    return URI.create("http://127.0.0.1:" + restPort + "/");
  }

  public ConnectRestClient rest() {
    return new ConnectRestClient(restUrl());
  }

  public Map<String, String> properties() {
    return properties;
  }

  /** Combined stdout/stderr of every start of this worker. */
  public Path logFile() {
    return workDir.resolve("worker.log");
  }

  /** The last 60 lines of the log. */
  public String logTail() {
    try {
      List<String> lines = Files.readAllLines(logFile(), StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** Stops the worker (SIGTERM) and deletes its directory, log included. */
  @Override
  public void close() {
    stop();
    try (java.util.stream.Stream<Path> paths = Files.walk(workDir)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      LOG.warn("could not delete {}: {}", workDir, e.toString());
    }
  }

  @Override
  public String toString() {
    return "ConnectWorkerProcess[" + properties.get("group.id") + " @ " + restUrl() + "]";
  }
}
