package io.trellara.source.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SourceTopicsTest {

  private static SourceTopics.Plan unreachablePlan() {
    return new SourceTopics.Plan(
        List.of(
            new SourceTopics.Requirement(
                "flow.strict",
                "topic.strict",
                1,
                "the strict topic",
                2048,
                "max.message.bytes >= 2048")),
        Map.of("bootstrap.servers", "127.0.0.1:1"),
        (short) -1,
        Duration.ofSeconds(2),
        "kafka.bootstrap.servers",
        "topic.check.timeout.ms");
  }

  @Test
  void unreachableBrokersFailWithinTheTimeoutNamingTheSettingAndTheTopics() {
    long started = System.nanoTime();
    assertThatThrownBy(() -> SourceTopics.ensure(unreachablePlan()))
        .isInstanceOf(SourceTopics.TopicsException.class)
        .hasMessageContaining(
            "kafka.bootstrap.servers: Cannot verify or create the topics [flow.strict]")
        .hasMessageContaining("kafka.bootstrap.servers=127.0.0.1:1")
        .hasMessageContaining("topic.check.timeout.ms");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(15));
  }

  @Test
  void validationReportsUnreachableBrokersAsAProblemOfTheBootstrapSetting() {
    assertThat(SourceTopics.inspect(unreachablePlan()))
        .singleElement()
        .satisfies(p -> assertThat(p.property()).isEqualTo("kafka.bootstrap.servers"));
  }
}
