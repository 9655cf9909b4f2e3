package io.trellara.benchmarks.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Debezium leg's wiring: legs named on the command line, its plugins, its report columns. */
class DebeziumLegTest {

  @Test
  void debeziumIsALegOfItsOwnAndOfAll() {
    assertEquals(List.of("native", "debezium"), EndToEndBenchmark.modes("debezium"));
    assertEquals(
        List.of("native", "strict", "debezium"), EndToEndBenchmark.modes("strict,debezium"));
    assertEquals(
        List.of(
            "native",
            "strict",
            "strict_chunked",
            "partitioned@1",
            "partitioned@2",
            "partitioned@4",
            "debezium"),
        EndToEndBenchmark.modes("all")); // partitioned: one leg per sink task count
    assertEquals(List.of("native", "partitioned@2"), EndToEndBenchmark.modes("partitioned@2"));
    IllegalArgumentException unknown =
        assertThrows(IllegalArgumentException.class, () -> EndToEndBenchmark.modes("debezum"));
    assertTrue(unknown.getMessage().contains("unknown leg debezum"), unknown.getMessage());
  }

  @Test
  void missingPluginsAreNamed(@TempDir Path dir) throws Exception {
    Files.createDirectories(dir.resolve("debezium-connector-postgres"));
    String before = System.getProperty(DebeziumLeg.PLUGINS_PROPERTY);
    System.setProperty(DebeziumLeg.PLUGINS_PROPERTY, dir.toString());
    try {
      IllegalStateException missing =
          assertThrows(IllegalStateException.class, DebeziumLeg::pluginPath);
      assertTrue(
          missing.getMessage().contains("debezium-connector-jdbc in " + dir), missing.getMessage());
      Files.createDirectories(dir.resolve("debezium-connector-jdbc"));
      assertEquals(dir, DebeziumLeg.pluginPath());
    } finally {
      if (before == null) {
        System.clearProperty(DebeziumLeg.PLUGINS_PROPERTY);
      } else {
        System.setProperty(DebeziumLeg.PLUGINS_PROPERTY, before);
      }
    }
  }

  @Test
  void theBuildUnpacksBothPlugins() {
    // target/debezium-plugins beside target/test-classes, from the generate-resources phase
    Path plugins = DebeziumLeg.pluginPath();
    assertTrue(
        Files.isRegularFile(
            plugins.resolve(
                "debezium-connector-postgres/debezium-connector-postgres-3.6.1.Final.jar")),
        plugins.toString());
    assertTrue(
        Files.isRegularFile(
            plugins.resolve("debezium-connector-jdbc/debezium-connector-jdbc-3.6.0.Final.jar")),
        plugins.toString());
  }

  @Test
  void debeziumsCaptureThreadIsCapture() {
    assertEquals(
        "capture",
        WorkerThreads.role("debezium-postgresconnector-bench_dbz-change-event-source-coordinator"));
    assertEquals("source task", WorkerThreads.role("task-thread-bench-debezium-source-0"));
    assertEquals("sink task", WorkerThreads.role("task-thread-bench-debezium-sink-0"));
  }

  @Test
  void everyFigureIsARatioToNativeAndToDebezium() {
    List<LegResult> results =
        List.of(
            new LegResult("native", 1, 2, 10, 10, 1, 5, 1000, 400, -1),
            new LegResult("strict", 4, 6, 20, 12, 4, 20, 2000, 1200, -1),
            new LegResult("debezium", 40, 50, 40, 16, 500, 1000, 3000, 4400, -1));
    String out = printed(results);
    // strict: bulk COMMIT → applied 6 s = 3× native's 2 s and 0.12× Debezium's 50 s
    assertTrue(
        out.contains("| strict | 6.00 | 3.00 | 0.12 | 4.00 | 4.00 | 0.10 | 20.00 | 2.00 | 0.50 |"),
        out);
    assertTrue(out.contains("× dbz"), out);
    // worker CPU over idle: strict (1200 - 400) against Debezium's (4400 - 400) is 0.2×
    assertTrue(out.contains("0.20× Debezium's over idle"), out);
  }

  @Test
  void withoutDebeziumTheReportIsAsBefore() {
    List<LegResult> results =
        List.of(
            new LegResult("native", 1, 2, 10, 10, 1, 5, 1000, 400, -1),
            new LegResult("strict", 4, 6, 20, 12, 4, 20, 2000, 1200, -1));
    String out = printed(results);
    assertTrue(out.contains("| strict | 6.00 | 3.00 | 4.00 | 4.00 | 20.00 | 2.00 |"), out);
    assertTrue(!out.contains("dbz") && !out.contains("Debezium's"), out);
  }

  private static String printed(List<LegResult> results) {
    PrintStream before = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      Report.print(results, 300_000, 20_000);
    } finally {
      System.setOut(before);
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
