package io.trellara.source.pgoutput;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The parser package stays pure: no Kafka, no Connect, no JDBC, no pgjdbc. */
class PgOutputPackageDependencyTest {

  private static final Path SOURCES = Path.of("src/main/java/io/trellara/source/pgoutput");

  @Test
  void parserPackageImportsNothingFromKafkaOrJdbc() throws IOException {
    assertThat(SOURCES).isDirectory();
    List<Path> files;
    try (Stream<Path> s = Files.list(SOURCES)) {
      files = s.filter(p -> p.toString().endsWith(".java")).toList();
    }
    assertThat(files).isNotEmpty();
    for (Path file : files) {
      assertThat(Files.readAllLines(file))
          .as(file.getFileName().toString())
          .filteredOn(line -> line.startsWith("import "))
          .noneMatch(
              line ->
                  line.contains("org.apache.kafka")
                      || line.contains("java.sql")
                      || line.contains("javax.sql")
                      || line.contains("org.postgresql"));
    }
  }
}
