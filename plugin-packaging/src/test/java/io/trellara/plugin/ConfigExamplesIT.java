package io.trellara.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectRestClient.ValidationResult;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every file of config-examples/ as a user deploys it: hosts, ports, databases, users, slots and topics
 * substituted for the placeholders, then {@code PUT /connector-plugins/{plugin}/config/validate} with zero
 * errors and {@code POST /connectors} to RUNNING, on a worker that loads the plugin from the unpacked archive.
 * A {@code .properties} file is validated the same way; it is not deployed a second time because it must say
 * exactly what its JSON twin says ({@link #everyPropertiesFileSaysWhatItsJsonTwinSays()}), and the twin runs.
 */
@ExtendWith(PluginWorker.class)
class ConfigExamplesIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SOURCE_HOST_PLACEHOLDER = "source-postgres";
    private static final String TARGET_URL_PLACEHOLDER = "jdbc:postgresql://target-postgres:5432/shop";

    /** An example file: its connector name and config, as written. */
    record Example(Path file, String name, Map<String, String> config) {
        String connectorClass() {
            return config.get("connector.class");
        }

        boolean isSource() {
            return PluginWorker.SOURCE_CLASS.equals(connectorClass());
        }
    }

    static Path examplesDir() {
        return PluginWorker.repoRoot().resolve("config-examples");
    }

    static List<Path> exampleFiles() {
        try (Stream<Path> files = Files.list(examplesDir())) {
            return files.filter(p -> p.toString().endsWith(".json") || p.toString().endsWith(".properties"))
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Example read(Path file) {
        try {
            Map<String, String> config = new LinkedHashMap<>();
            String name;
            if (file.toString().endsWith(".json")) {
                JsonNode root = JSON.readTree(file.toFile());
                name = root.path("name").asText();
                root.path("config").fields().forEachRemaining(e -> {
                    assertThat(e.getValue().isTextual()).as("%s: %s must be a JSON string (Connect configs are"
                            + " strings)", file.getFileName(), e.getKey()).isTrue();
                    config.put(e.getKey(), e.getValue().asText());
                });
            } else {
                Properties p = new Properties();
                try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                    p.load(r);
                }
                name = p.getProperty("name");
                p.stringPropertyNames().stream().filter(k -> !k.equals("name")).sorted()
                        .forEach(k -> config.put(k, p.getProperty(k)));
            }
            assertThat(name).as("%s: connector name", file.getFileName()).isNotBlank();
            return new Example(file, name, config);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void examplesCoverTheSourceInBothProtocolsAndTheSinkInBothFormats() {
        assertThat(exampleFiles()).extracting(p -> p.getFileName().toString()).contains(
                "source-strict.json", "source-strict.properties", "source-pgoutput-v1.json",
                "source-pgoutput-v1.properties", "sink.json", "sink.properties");
    }

    @Test
    void everyPropertiesFileSaysWhatItsJsonTwinSays() {
        for (Path file : exampleFiles()) {
            if (file.toString().endsWith(".properties")) {
                Path twin = file.resolveSibling(file.getFileName().toString().replace(".properties", ".json"));
                Example properties = read(file);
                Example json = read(twin);
                assertThat(properties.name()).as(file.getFileName().toString()).isEqualTo(json.name());
                assertThat(properties.config()).as(file.getFileName().toString())
                        .containsExactlyInAnyOrderEntriesOf(json.config());
            }
        }
    }

    @Test
    void everyExampleKeepsTheSettingsEnvelopesNeed() {
        for (Path file : exampleFiles()) {
            Map<String, String> c = read(file).config();
            String what = file.getFileName().toString();
            assertThat(c).as(what)
                    .containsEntry("key.converter", "org.apache.kafka.connect.storage.StringConverter")
                    .containsEntry("value.converter", PluginWorker.CONVERTER_CLASS)
                    .containsEntry("tasks.max", "1");
            if (PluginWorker.SOURCE_CLASS.equals(c.get("connector.class"))) {
                assertThat(c).as(what).containsKey("producer.override.max.request.size")
                        .containsEntry("topic.creation.default.partitions", "1")
                        .containsKey("topic.creation.default.replication.factor")
                        .containsEntry("database.hostname", SOURCE_HOST_PLACEHOLDER);
            } else {
                assertThat(c).as(what).containsKey("consumer.override.max.partition.fetch.bytes")
                        .containsEntry("connection.url", TARGET_URL_PLACEHOLDER);
            }
        }
    }

    @TestFactory
    Stream<DynamicTest> everyExampleValidatesWithoutErrorsAndRuns() {
        return exampleFiles().stream().map(file -> DynamicTest.dynamicTest(file.getFileName().toString(),
                () -> deploy(read(file))));
    }

    private static void deploy(Example example) throws IOException {
        ConnectRestClient rest = PluginWorker.rest();
        try (TestScope scope = PluginWorker.stack().newScope(example.name())) {
            try {
                // a source example needs the source server, a sink example the target server, each with the schema
                PostgresDatabase db = example.isSource() ? scope.sourceDatabase() : scope.targetDatabase();
                db.execute(Files.readString(examplesDir().resolve("shop-schema.sql")));
                String topic = scope.topic("strict");
                Map<String, String> config = substitute(example, scope, db, topic);
                if (!example.isSource()) {
                    PluginWorker.stack().broker().createTopic(topic, 1, Map.of("max.message.bytes", "67108864"));
                }

                ValidationResult validation = rest.validate(example.connectorClass(), config);
                assertThat(validation.messages()).as("validation errors of %s", example.file().getFileName())
                        .isEmpty();
                assertThat(validation.errorCount()).isZero();

                if (example.file().toString().endsWith(".properties")) {
                    return; // same settings as its JSON twin (asserted above), which is deployed to RUNNING
                }
                String name = scope.connectorName(example.name());
                rest.createConnector(JSON.writeValueAsString(Map.of("name", name, "config", config)));
                rest.awaitRunning(name);
                if (example.isSource()) {
                    // the topic is created by Connect from topic.creation.default.*, and a transaction arrives
                    db.executeInTransaction("INSERT INTO orders VALUES (1, 7, 'new', 12.50, now())",
                            "INSERT INTO order_line VALUES (1, 1, 'sku-1', 2, 6.25)");
                    await().atMost(Duration.ofSeconds(60)).ignoreExceptions() // the topic appears with the first record
                            .until(() -> PluginWorker.stack().broker().readAll(topic).size() == 1);
                }
            } finally {
                PluginWorker.deleteConnectors(scope);
            }
        }
    }

    /** source-strict.json and sink.json as they are meant to run: together, the target ends equal to the source. */
    @Test
    void strictSourceAndSinkExamplesTogetherReplicateTheShopTables() throws IOException {
        ConnectRestClient rest = PluginWorker.rest();
        Example sourceExample = read(examplesDir().resolve("source-strict.json"));
        Example sinkExample = read(examplesDir().resolve("sink.json"));
        assertThat(sinkExample.config().get("topics")).isEqualTo(sourceExample.config().get("topic.strict"));
        try (TestScope scope = PluginWorker.stack().newScope("examplePair")) {
            try {
                PostgresDatabase source = scope.sourceDatabase();
                PostgresDatabase target = scope.targetDatabase();
                String schema = Files.readString(examplesDir().resolve("shop-schema.sql"));
                source.execute(schema);
                target.execute(schema);
                String topic = scope.topic("strict");
                String sourceName = scope.connectorName("source");
                rest.createConnector(sourceName, substitute(sourceExample, scope, source, topic));
                rest.awaitRunning(sourceName);
                source.executeInTransaction("INSERT INTO orders VALUES (1, 42, 'paid', 30.00, now())",
                        "INSERT INTO order_line VALUES (1, 1, 'sku-1', 2, 10.00), (1, 2, 'sku-2', 1, 10.00)",
                        "INSERT INTO payment VALUES (1, 1, 30.00, now())");
                source.executeInTransaction("UPDATE orders SET status = 'shipped' WHERE id = 1",
                        "DELETE FROM order_line WHERE line_no = 2", "UPDATE orders SET total = 20.00 WHERE id = 1");
                // the source created the topic (topic.creation.default.*); the sink reads it from the start
                await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                        .until(() -> PluginWorker.stack().broker().readAll(topic).size() == 2);
                String sinkName = scope.connectorName("sink");
                rest.createConnector(sinkName, substitute(sinkExample, scope, target, topic));
                rest.awaitRunning(sinkName);
                for (String table : List.of("orders", "order_line", "payment")) {
                    String sql = "SELECT t::text FROM " + table + " t ORDER BY t::text";
                    await().atMost(Duration.ofSeconds(90)).until(() -> source.query(sql).equals(target.query(sql)));
                }
                assertThat(target.queryLong("SELECT count(*) FROM order_line")).isEqualTo(1);
            } finally {
                PluginWorker.deleteConnectors(scope);
            }
        }
    }

    /** Replaces the placeholders (hosts, ports, databases, users, slots, topics) by this scope's real ones. */
    private static Map<String, String> substitute(Example example, TestScope scope, PostgresDatabase db,
                                                  String topic) {
        Map<String, String> c = new LinkedHashMap<>(example.config());
        if (example.isSource()) {
            replace(c, "database.hostname", db.host());
            replace(c, "database.port", Integer.toString(db.port()));
            replace(c, "database.dbname", db.name());
            replace(c, "database.user", db.user());
            replace(c, "database.password", db.password());
            replace(c, "slot.name", scope.slotName());
            replace(c, "publication.name", scope.publicationName());
            replace(c, "source.id", scope.prefix() + "-src");
            replace(c, "topic.strict", topic);
        } else {
            replace(c, "connection.url", db.jdbcUrl());
            replace(c, "connection.user", db.user());
            replace(c, "connection.password", db.password());
            replace(c, "topics", topic);
        }
        return c;
    }

    private static void replace(Map<String, String> config, String key, String value) {
        assertThat(config).as("the example sets %s", key).containsKey(key);
        config.put(key, value);
    }
}
