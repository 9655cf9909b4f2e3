package io.trellara.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A worker whose plugin.path is the unpacked component archive ({@code
 * plugin.discovery=service_load}) offers the three plugins and runs the whole flow: source table,
 * source connector, Kafka, sink connector, target table. The Trellara classes are not on this JVM's
 * class path (failsafe excludes them), so everything the worker runs came from the archive through
 * its isolated plugin class loader.
 */
@ExtendWith(PluginWorker.class)
@EitherPlatform
class PluginIsolationIT {

  @Test
  void trellaraClassesAreNotOnTheTestClassPath() {
    for (String name :
        List.of(
            PluginWorker.SOURCE_CLASS,
            PluginWorker.SINK_CLASS,
            PluginWorker.CONVERTER_CLASS,
            "io.trellara.protocol.codec.TrellaraCodec")) {
      assertThatThrownBy(() -> Class.forName(name))
          .as(name)
          .isInstanceOf(ClassNotFoundException.class);
    }
    assertThat(PluginWorker.worker().properties())
        .containsEntry("plugin.discovery", "service_load")
        .containsEntry("plugin.path", PluginWorker.pluginPath().toAbsolutePath().toString());
  }

  @Test
  void workerListsTheSourceTheSinkAndTheConverterFromTheArchive() {
    List<JsonNode> plugins = PluginWorker.rest().connectorPlugins(false);
    assertThat(plugin(plugins, PluginWorker.SOURCE_CLASS).path("type").asText())
        .isEqualTo("source");
    assertThat(plugin(plugins, PluginWorker.SINK_CLASS).path("type").asText()).isEqualTo("sink");
    assertThat(plugin(plugins, PluginWorker.CONVERTER_CLASS).path("type").asText())
        .isEqualTo("converter");
    assertThat(plugin(plugins, PluginWorker.SOURCE_CLASS).path("version").asText()).isNotBlank();
    assertThat(PluginWorker.rest().connectorPluginClasses())
        .contains(PluginWorker.SOURCE_CLASS, PluginWorker.SINK_CLASS);
  }

  @Test
  void transactionsFlowFromTheSourceTableToTheTargetTableThroughThePluginFromTheArchive() {
    ConnectRestClient rest = PluginWorker.rest();
    try (TestScope scope = PluginWorker.stack().newScope("pluginFlow")) {
      try {
        PostgresDatabase source = scope.sourceDatabase();
        PostgresDatabase target = scope.targetDatabase();
        String ddl = "CREATE TABLE account (id int PRIMARY KEY, owner text, balance numeric(12,2))";
        source.execute(ddl);
        target.execute(ddl);
        String topic = scope.createTopic("strict", 1);

        String sourceName = scope.connectorName("source");
        rest.createConnector(
            sourceName, ConnectorConfigs.source(scope, source, topic, "public.account", Map.of()));
        rest.awaitRunning(sourceName);
        String sinkName = scope.connectorName("sink");
        rest.createConnector(sinkName, ConnectorConfigs.sink(target, topic, Map.of()));
        rest.awaitRunning(sinkName);

        source.executeInTransaction(
            "INSERT INTO account SELECT g, 'owner ' || g, g * 10.25 FROM generate_series(1, 100) g");
        source.executeInTransaction(
            "UPDATE account SET balance = balance - 5 WHERE id = 1",
            "UPDATE account SET balance = balance + 5 WHERE id = 2",
            "DELETE FROM account WHERE id > 90");
        source.execute("UPDATE account SET owner = 'renamed' WHERE id = 3");

        await()
            .atMost(Duration.ofSeconds(90))
            .until(() -> Objects.equals(rows(source), rows(target)));
        assertThat(rows(target)).hasSize(90);
        assertThat(target.queryLong("SELECT count(*) FROM trellara_sink.applied_transactions"))
            .isEqualTo(3);
      } finally {
        PluginWorker.deleteConnectors(scope);
      }
    }
  }

  private static List<List<Object>> rows(PostgresDatabase db) {
    return db.query("SELECT a::text FROM account a ORDER BY id");
  }

  private static JsonNode plugin(List<JsonNode> plugins, String className) {
    return plugins.stream()
        .filter(p -> className.equals(p.path("class").asText()))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError(className + " not offered by the worker: " + plugins));
  }
}
