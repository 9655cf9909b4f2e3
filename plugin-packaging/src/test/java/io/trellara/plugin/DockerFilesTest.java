package io.trellara.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * docker/: the compose file is validated by {@code docker-compose config} when that tool is
 * installed (no Docker engine is needed for it; Debian: {@code apt-get install -y docker-compose});
 * otherwise that check is reported as skipped. The plain checks below need no tool.
 */
class DockerFilesTest {

  private static Path docker() {
    return Path.of(System.getProperty("trellara.repo.root", ".."))
        .toAbsolutePath()
        .normalize()
        .resolve("docker");
  }

  private static String read(String file) throws IOException {
    return Files.readString(docker().resolve(file), StandardCharsets.UTF_8);
  }

  @Test
  void composeFileIsValidForDockerCompose() throws Exception {
    String command = System.getProperty("trellara.docker-compose", "docker-compose");
    Path tool = onPath(command);
    if (tool == null) {
      System.err.println(
          "DockerFilesTest: "
              + command
              + " not on PATH; docker/docker-compose.yml not validated"
              + " (skipped). Debian: apt-get install -y docker-compose");
    }
    Assumptions.assumeTrue(
        tool != null,
        "SKIPPED: "
            + command
            + " is not on PATH, so docker/docker-compose.yml"
            + " was not validated. Install it (Debian: apt-get install -y docker-compose; no Docker engine"
            + " needed) to run this check.");
    Path compose = docker().resolve("docker-compose.yml");
    Process process =
        new ProcessBuilder(tool.toString(), "-f", compose.toString(), "config", "-q")
            .redirectErrorStream(true)
            .start();
    boolean finished = process.waitFor(60, TimeUnit.SECONDS);
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!finished) {
      process.destroyForcibly();
    }
    assertThat(finished).as("docker-compose config finished within 60 s").isTrue();
    assertThat(process.exitValue())
        .as("docker-compose -f %s config:%n%s", compose, output)
        .isZero();
  }

  @Test
  void composeFileRunsKafkaConnectBothPostgresServersAndAUi() throws IOException {
    String compose = read("docker-compose.yml");
    assertThat(compose)
        .contains(
            "image: apache/kafka:4.",
            "KAFKA_PROCESS_ROLES: \"broker,controller\"",
            "dockerfile: docker/Dockerfile",
            "source-postgres:",
            "target-postgres:",
            "image: postgres:17",
            "wal_level=logical",
            "KAFKA_CLUSTERS_0_KAFKACONNECT_0_ADDRESS: \"http://connect:8083\"");
  }

  @Test
  void dockerfileAddsThePluginDirectoryToTheOfficialKafkaImage() throws IOException {
    String dockerfile = read("Dockerfile");
    assertThat(dockerfile)
        .contains(
            "FROM apache/kafka:${KAFKA_VERSION}",
            "ARG KAFKA_VERSION=4.",
            "plugin-packaging/target/plugin/trellara-kafka-connect-postgresql",
            "/opt/kafka/plugins/trellara-kafka-connect-postgresql/");
    assertThat(read("connect-distributed.properties"))
        .contains(
            "plugin.path=/opt/kafka/plugins",
            "plugin.discovery=service_load",
            "connector.client.config.override.policy=All");
    assertThat(read("connect-entrypoint.sh"))
        .contains("exec /opt/kafka/bin/connect-distributed.sh");
  }

  private static Path onPath(String command) {
    String path = System.getenv("PATH");
    if (path == null) {
      return null;
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir, command);
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return null;
  }
}
