package io.trellara.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The source's size and import rules (docs/architecture.md, "House rules"): no main class over 400
 * lines, no package over 20 files, and packages import downwards only.
 */
class SourceStructureTest {
  private static final Path ROOT = Path.of("src/main/java/io/trellara/source");

  /** What each package may import of the source's other packages. */
  private static final Map<String, Set<String>> MAY_IMPORT =
      Map.ofEntries(
          Map.entry("pgoutput", Set.of()),
          Map.entry("capture", Set.of("pgoutput", "capture.ddl")),
          Map.entry("capture.ddl", Set.of("pgoutput", "capture")),
          Map.entry("routing", Set.of("capture")),
          Map.entry("pg", Set.of("capture", "capture.ddl", "routing")),
          Map.entry("kafka", Set.of()),
          Map.entry("snapshot", Set.of("capture", "pgoutput", "pg")),
          Map.entry(
              "replication",
              Set.of("capture", "capture.ddl", "pgoutput", "routing", "pg", "snapshot")),
          Map.entry("signal", Set.of("capture", "pgoutput", "pg", "snapshot", "replication")),
          Map.entry(
              "startup",
              Set.of(
                  "capture",
                  "capture.ddl",
                  "routing",
                  "pg",
                  "kafka",
                  "snapshot",
                  "replication",
                  "signal")),
          Map.entry(
              "connect",
              Set.of(
                  "capture",
                  "capture.ddl",
                  "routing",
                  "pg",
                  "kafka",
                  "snapshot",
                  "replication",
                  "replication.ack",
                  "startup",
                  "signal",
                  "connect.metrics")),
          Map.entry("replication.ack", Set.of()),
          Map.entry("connect.metrics", Set.of("pg", "replication", "replication.ack", "snapshot")));

  private static List<Path> sources() throws IOException {
    try (Stream<Path> s = Files.walk(ROOT)) {
      return s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
    }
  }

  private static String packageOf(Path file) {
    return ROOT.relativize(file.getParent()).toString().replace('/', '.');
  }

  @Test
  void noMainClassIsOver400Lines() throws IOException {
    List<String> over = new ArrayList<>();
    for (Path f : sources()) {
      int lines = Files.readAllLines(f).size();
      if (lines > 400) {
        over.add(ROOT.relativize(f) + " (" + lines + " lines)");
      }
    }
    assertThat(over).isEmpty();
  }

  @Test
  void noPackageHoldsMoreThan20Files() throws IOException {
    Map<String, Long> files =
        sources().stream()
            .collect(
                Collectors.groupingBy(
                    SourceStructureTest::packageOf, TreeMap::new, Collectors.counting()));
    assertThat(files.entrySet().stream().filter(e -> e.getValue() > 20).toList()).isEmpty();
  }

  @Test
  void everyPackageImportsOnlyThePackagesBelowIt() throws IOException {
    List<String> upward = new ArrayList<>();
    for (Path f : sources()) {
      String pkg = packageOf(f);
      Set<String> allowed = MAY_IMPORT.get(pkg);
      assertThat(allowed).as("a rule for package " + pkg).isNotNull();
      for (String line : Files.readAllLines(f)) {
        if (!line.startsWith("import io.trellara.source.")) {
          continue;
        }
        String imported = line.substring("import io.trellara.source.".length());
        String target = imported.replaceAll("\\.[A-Z].*$", "");
        if (!target.equals(pkg) && !allowed.contains(target)) {
          upward.add(ROOT.relativize(f) + " imports " + target);
        }
      }
    }
    assertThat(upward).isEmpty();
  }
}
