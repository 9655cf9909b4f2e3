package io.trellara.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What the jar puts on a consumer's classpath: every committed vector, byte for byte, found through
 * the index.
 */
class KitContentsTest {
  private static final String ROOT = "trellara/conformance/v1/";
  private static final Path VECTORS = Path.of("vectors");

  @Test
  void theIndexNamesEveryCommittedVector() throws IOException {
    List<String> onDisk;
    try (Stream<Path> dirs = Files.list(VECTORS)) {
      onDisk =
          dirs.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList();
    }
    assertThat(index()).isEqualTo(onDisk).isNotEmpty();
  }

  @Test
  void theIdentityIndexNamesEveryIdentityVector() throws IOException {
    List<String> onDisk;
    try (Stream<Path> dirs = Files.list(Path.of("identity"))) {
      onDisk =
          dirs.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList();
    }
    assertThat(new String(resource("identity/index.txt"), StandardCharsets.UTF_8).lines().toList())
        .isEqualTo(onDisk)
        .isNotEmpty();
  }

  @Test
  void everyFileOfEveryVectorIsOnTheClasspathUnchanged() throws IOException {
    for (String name : index()) {
      try (Stream<Path> files = Files.list(VECTORS.resolve(name))) {
        for (Path file : files.toList()) {
          assertThat(resource("vectors/" + name + "/" + file.getFileName()))
              .as(file.toString())
              .isEqualTo(Files.readAllBytes(file));
        }
      }
    }
  }

  @Test
  void theIdlAndTheSpecificationTravelWithTheVectors() throws IOException {
    assertThat(new String(resource("proto/trellara/v1/envelope.proto"), StandardCharsets.UTF_8))
        .contains("message TransactionEnvelope");
    assertThat(new String(resource("docs/protocol.md"), StandardCharsets.UTF_8))
        .contains("## Validation rules");
    assertThat(resource("docs/conformance.md")).isNotEmpty();
  }

  private static List<String> index() throws IOException {
    return new String(resource("vectors/index.txt"), StandardCharsets.UTF_8).lines().toList();
  }

  private static byte[] resource(String path) throws IOException {
    try (InputStream in = KitContentsTest.class.getClassLoader().getResourceAsStream(ROOT + path)) {
      assertThat(in).as(ROOT + path).isNotNull();
      return in.readAllBytes();
    }
  }
}
