package io.trellara.source.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The capture core (and its sub-packages) stays free of Kafka, Connect and JDBC. */
class CapturePackageDependencyTest {

  private static final Path SOURCES = Path.of("src/main/java/io/trellara/source/capture");

  @Test
  void captureCoreImportsNothingFromKafkaOrJdbc() throws IOException {
    List<Path> files;
    try (Stream<Path> s = Files.walk(SOURCES)) {
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
