package io.trellara.source.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.ConnectorStatus;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TrellaraStack;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code dataset.id} changed on a running pipeline: the sink deduplicates per source and dataset,
 * so a transaction published again after a restart under the new dataset would be applied twice.
 * The offsets record the dataset; a start under another one is refused, naming both.
 */
@EitherPlatform
class DatasetChangeIT {
  static final TrellaraStack STACK = TrellaraStack.get();
  static final Duration WAIT = Duration.ofSeconds(90);

  @Test
  void aStartUnderAnotherDatasetIdThanTheOffsetsIsRefused() {
    try (TestScope scope = STACK.newScope("datasetChange")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute("CREATE TABLE t (id int PRIMARY KEY, v text)");
      String topic = scope.createTopic("strict", 1);
      Map<String, String> config =
          new HashMap<>(
              ConnectorConfigs.source(
                  scope, db, topic, "public.t", Map.of("snapshot.mode", "never")));
      String name = scope.createConnector("source", config);
      STACK.rest().awaitRunning(name);
      db.execute("INSERT INTO t VALUES (1, 'a')");
      await()
          .atMost(WAIT)
          .until(() -> scope.prefix().equals(offset(name).path("dataset_id").asText()));
      STACK.rest().stop(name);
      STACK.rest().awaitState(name, "STOPPED");
      config.put("dataset.id", scope.prefix() + "-renamed");
      STACK.rest().putConnectorConfig(name, config);
      STACK.rest().resume(name);
      ConnectorStatus failed = STACK.rest().awaitFailed(name, WAIT);
      assertThat(failed.firstTrace())
          .contains("dataset.id is '" + scope.prefix() + "-renamed'")
          .contains("written under dataset.id '" + scope.prefix() + "'")
          .contains("applied a second time");
    }
  }

  private static JsonNode offset(String connector) {
    JsonNode offsets = STACK.rest().offsets(connector).path("offsets");
    return offsets.isEmpty() ? offsets : offsets.get(0).path("offset");
  }
}
