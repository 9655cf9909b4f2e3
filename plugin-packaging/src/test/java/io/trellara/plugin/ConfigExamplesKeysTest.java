package io.trellara.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.sink.connect.TrellaraSinkConfig;
import io.trellara.source.connect.TrellaraSourceConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

/**
 * Connect ignores keys it does not know, so a misspelt key in an example would validate and run
 * with the default silently. Every key of every example is a key of the connector's ConfigDef or
 * one of Connect's own (including {@code topic.creation.<group>.*} for a group the example lists in
 * {@code topic.creation.groups}).
 */
class ConfigExamplesKeysTest {
  private static final Set<String> CONNECT_KEYS =
      Set.of(
          "connector.class",
          "tasks.max",
          "topics",
          "topics.regex",
          "key.converter",
          "value.converter",
          "header.converter",
          "transforms",
          "predicates",
          "config.action.reload",
          "errors.tolerance",
          "errors.log.enable",
          "errors.log.include.messages",
          "errors.retry.timeout",
          "errors.retry.delay.max.ms",
          "exactly.once.support",
          "transaction.boundary",
          "offsets.storage.topic",
          "topic.creation.groups");
  private static final List<String> CONNECT_PREFIXES =
      List.of(
          "producer.override.",
          "consumer.override.",
          "admin.override.",
          "topic.creation.default.",
          "key.converter.",
          "value.converter.",
          "header.converter.",
          "errors.deadletterqueue.");

  @Test
  void everyExampleKeyIsKnownToTheConnectorOrToConnect() {
    for (Path file : ConfigExamplesIT.exampleFiles()) {
      ConfigExamplesIT.Example example = ConfigExamplesIT.read(file);
      ConfigDef def =
          example.isSource() ? TrellaraSourceConfig.CONFIG_DEF : TrellaraSinkConfig.CONFIG_DEF;
      List<String> prefixes = new ArrayList<>(CONNECT_PREFIXES);
      if (example.isSource()) {
        for (String group : ConfigExamplesIT.list(example.config().get("topic.creation.groups"))) {
          assertThat(example.config())
              .as("%s: topic creation group %s needs its include list", file.getFileName(), group)
              .containsKey("topic.creation." + group + ".include");
          prefixes.add("topic.creation." + group + ".");
        }
      }
      for (String key : example.config().keySet()) {
        boolean known =
            def.names().contains(key)
                || CONNECT_KEYS.contains(key)
                || prefixes.stream().anyMatch(key::startsWith);
        assertThat(known)
            .as("%s: unknown key %s (a typo would be ignored by Connect)", file.getFileName(), key)
            .isTrue();
      }
    }
  }
}
