package io.trellara.plugin;

import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectWorker;
import io.trellara.testplatform.ConnectWorkerProcess;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TrellaraStack;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A distributed Connect worker on the shared broker whose only source of Trellara classes is the
 * unpacked component archive on its {@code plugin.path} ({@code plugin.discovery=service_load},
 * isolated class loading). Started once per test JVM by the first class that uses this extension;
 * stopped when the test plan ends (before the stack's shutdown hook stops the broker).
 */
final class PluginWorker implements BeforeAllCallback {
  static final String SOURCE_CLASS = "io.trellara.source.connect.TrellaraSourceConnector";
  static final String SINK_CLASS = "io.trellara.sink.connect.TrellaraSinkConnector";
  static final String CONVERTER_CLASS = "io.trellara.converter.TrellaraConverter";

  private static ConnectWorker worker;
  private static Path pluginPath;

  @Override
  public void beforeAll(ExtensionContext context) {
    context
        .getRoot()
        .getStore(ExtensionContext.Namespace.GLOBAL)
        .getOrComputeIfAbsent(
            PluginWorker.class, k -> (AutoCloseable) PluginWorker::stop, AutoCloseable.class);
    worker();
  }

  static TrellaraStack stack() {
    return TrellaraStack.get();
  }

  static synchronized ConnectWorker worker() {
    if (worker == null) {
      pluginPath = unpackArchive();
      worker =
          ConnectWorker.builder(stack().broker())
              .groupId("trellara-plugin-it")
              .pluginPath(pluginPath)
              .pluginDiscovery("service_load")
              .start();
    }
    return worker;
  }

  static ConnectRestClient rest() {
    return worker().rest();
  }

  /** The plugin.path directory: it holds exactly one entry, the archive's top-level directory. */
  static synchronized Path pluginPath() {
    worker();
    return pluginPath;
  }

  /**
   * A worker in a JVM of its own (so that it can be killed with SIGKILL) loading the plugin from
   * {@code pluginPath}; a dead member leaves the worker group after 6 s instead of 45 s.
   */
  static ConnectWorkerProcess killableWorker(
      TrellaraStack stack, String groupId, Path pluginPath, String heap) {
    return killableWorkerBuilder(stack, groupId, pluginPath, heap).buildProcess();
  }

  /** The settings of {@link #killableWorker}, for a test that adds its own. */
  static ConnectWorker.Builder killableWorkerBuilder(
      TrellaraStack stack, String groupId, Path pluginPath, String heap) {
    return ConnectWorker.builder(stack.broker())
        .groupId(groupId)
        .pluginPath(pluginPath)
        .pluginDiscovery("service_load")
        .set("session.timeout.ms", "6000")
        .set("heartbeat.interval.ms", "1000")
        .jvmArg("-Xmx" + heap);
  }

  private static synchronized void stop() {
    if (worker != null) {
      worker.stop();
      worker = null;
    }
  }

  /** Deletes the scope's connectors from this worker (TestScope only knows the stack's worker). */
  static void deleteConnectors(TestScope scope) {
    ConnectRestClient rest = rest();
    for (String connector : rest.connectors()) {
      if (connector.startsWith(scope.prefix() + "-")) {
        rest.deleteAndAwait(connector);
      }
    }
  }

  static Path archive() {
    Path archive = Path.of(System.getProperty("trellara.plugin.archive", "target/missing.zip"));
    if (!Files.isRegularFile(archive)) {
      throw new IllegalStateException(
          "no component archive at "
              + archive
              + ": run the ITs through"
              + " `./mvnw -B -pl plugin-packaging verify`, which builds it in the package phase");
    }
    return archive;
  }

  static Path repoRoot() {
    return Path.of(System.getProperty("trellara.repo.root", "..")).toAbsolutePath().normalize();
  }

  /** Unzips the component archive into target/it-plugin-path/ (emptied first). */
  static Path unpackArchive() {
    return unpackArchive("it-plugin-path");
  }

  /**
   * Unzips the component archive into target/{@code directory}/ (emptied first): a plugin.path of
   * its own.
   */
  static Path unpackArchive(String directory) {
    // one directory per test JVM: failsafe runs IT classes in two JVMs at once
    Path target =
        archive()
            .toAbsolutePath()
            .getParent()
            .resolve(directory + "-fork" + System.getProperty("trellara.fork", "1"));
    try {
      deleteRecursively(target);
      Files.createDirectories(target);
      try (ZipInputStream zip = new ZipInputStream(Files.newInputStream(archive()))) {
        for (ZipEntry entry; (entry = zip.getNextEntry()) != null; ) {
          Path out = target.resolve(entry.getName()).normalize();
          if (!out.startsWith(target)) {
            throw new IllegalStateException(
                "archive entry escapes its directory: " + entry.getName());
          }
          if (entry.isDirectory()) {
            Files.createDirectories(out);
          } else {
            Files.createDirectories(out.getParent());
            copy(zip, out);
          }
        }
      }
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot unpack " + archive(), e);
    }
  }

  private static void copy(InputStream in, Path out) throws IOException {
    Files.copy(in, out, StandardCopyOption.REPLACE_EXISTING);
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
