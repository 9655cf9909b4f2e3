package io.trellara.testplatform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.common.utils.internals.AppInfoParser;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Choosing the platform; no server is started. */
class TestServersTest {
  private final String before = System.getProperty(TestServers.PROPERTY);

  @AfterEach
  void restoreProperty() {
    if (before == null) {
      System.clearProperty(TestServers.PROPERTY);
    } else {
      System.setProperty(TestServers.PROPERTY, before);
    }
  }

  @Test
  void embeddedIsTheDefaultAndAlwaysAvailable() {
    System.clearProperty(TestServers.PROPERTY);
    assertThat(TestServers.current().name()).isEqualTo("embedded");
    assertThat(TestServers.current().unavailable()).isEmpty();
    try (TestServers.Postgres unstarted = TestServers.current().postgres("choice")) {
      assertThat(unstarted).isInstanceOf(PostgresServer.class);
    }
  }

  @Test
  void testcontainersIsChosenByTheProperty() {
    System.setProperty(TestServers.PROPERTY, "testcontainers");
    assertThat(TestServers.current().name()).isEqualTo("testcontainers");
  }

  @Test
  void anUnknownPlatformIsRefusedNamingTheChoices() {
    System.setProperty(TestServers.PROPERTY, "docker");
    assertThatThrownBy(TestServers::current)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("embedded or testcontainers");
  }

  @Test
  void theKafkaImageIsTheKafkaVersionTheProjectBuildsWith() {
    assertThat(ContainerServers.kafkaImage())
        .isEqualTo("apache/kafka:" + AppInfoParser.getVersion());
  }
}
