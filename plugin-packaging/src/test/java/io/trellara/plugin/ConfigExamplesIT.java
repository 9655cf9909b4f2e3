package io.trellara.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectRestClient.ValidationResult;
import io.trellara.testplatform.ConnectorStatus;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.KafkaBroker;
import io.trellara.testplatform.KafkaRecord;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.awaitility.core.ThrowingRunnable;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every file of config-examples/ as a user deploys it: hosts, ports, databases, users, slots and
 * topics substituted for the placeholders, then {@code PUT
 * /connector-plugins/{plugin}/config/validate} with zero errors and {@code POST /connectors} to
 * RUNNING, on a worker that loads the plugin from the unpacked archive. A {@code .properties} file
 * is validated the same way; it is not deployed a second time because it must say exactly what its
 * JSON twin says ({@link #everyPropertiesFileSaysWhatItsJsonTwinSays()}), and the twin runs. Each
 * sink example runs together with the source example whose topics it reads, and the target ends
 * equal to the source ({@link #sourceAndSinkExamplesTogetherReplicateTheShopTables()}).
 *
 * <p>The worker's class path holds no Trellara or protobuf classes (isolated class loading), so
 * records are judged by their headers ({@code trellara.kind}, {@code trellara.boundary_mode},
 * {@code trellara.counts}).
 */
@ExtendWith(PluginWorker.class)
@EitherPlatform
class ConfigExamplesIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SOURCE_HOST_PLACEHOLDER = "source-postgres";
  private static final String TARGET_URL_PLACEHOLDER =
      "jdbc:postgresql://target-postgres:5432/shop";

  /**
   * Kafka's defaults: max.request.size of the producer, and what dataset.chunk.max_bytes defaults
   * to.
   */
  private static final long KAFKA_DEFAULT_MAX_REQUEST_SIZE = 1_048_576;

  private static final long DEFAULT_CHUNK_MAX_BYTES = 1_000_000;
  private static final String KIND = "trellara.kind";
  private static final String BOUNDARY_MODE = "trellara.boundary_mode";
  private static final String COUNTS = "trellara.counts";
  private static final Duration WAIT = Duration.ofSeconds(90);

  /**
   * The boundary mode of a source example (and of the sink reading its topics), in the wire
   * vocabulary.
   */
  enum Mode {
    STRICT("strict_transaction_order"),
    STRICT_CHUNKED("strict_chunked_transaction_order"),
    PARTITIONED("partitioned_scale_mode");

    final String wire;

    Mode(String wire) {
      this.wire = wire;
    }

    /** Records of the one-transaction check on the strict topic, in order. */
    List<String> strictTopicKindsOfOneTransaction() {
      return switch (this) {
        case STRICT -> List.of("envelope");
        case STRICT_CHUNKED -> List.of("chunk", "manifest", "commit_marker");
        case PARTITIONED -> List.of("manifest", "commit_marker");
      };
    }

    static Mode of(Map<String, String> sourceConfig) {
      if ("partitioned_scale_mode".equals(sourceConfig.get("dataset.mode"))) {
        return PARTITIONED;
      }
      return Long.parseLong(
                  sourceConfig.getOrDefault("dataset.strict_chunking.max_changes_per_chunk", "0"))
              > 0
          ? STRICT_CHUNKED
          : STRICT;
    }
  }

  /** An example file: its connector name and config, as written. */
  record Example(Path file, String name, Map<String, String> config) {
    String connectorClass() {
      return config.get("connector.class");
    }

    boolean isSource() {
      return PluginWorker.SOURCE_CLASS.equals(connectorClass());
    }

    String fileName() {
      return file.getFileName().toString();
    }

    /**
     * A source's mode from its own settings; a sink's from the source example whose topics it
     * reads.
     */
    Mode mode() {
      return isSource() ? Mode.of(config) : producerOf(this).mode();
    }

    /**
     * The topics the example names: a source's strict (and partitioned) topic, a sink's {@code
     * topics}.
     */
    List<String> topics() {
      if (!isSource()) {
        return list(config.get("topics"));
      }
      return mode() == Mode.PARTITIONED
          ? List.of(config.get("topic.strict"), config.get("topic.partitioned"))
          : List.of(config.get("topic.strict"));
    }

    int tasksMax() {
      return Integer.parseInt(config.get("tasks.max"));
    }

    long longValue(String key, long orElse) {
      return config.containsKey(key) ? Long.parseLong(config.get(key)) : orElse;
    }
  }

  /**
   * How Connect creates a topic a source writes (the first group of {@code topic.creation.groups}
   * whose include matches and exclude does not, else {@code default}; a group's partitions and
   * replication factor default to the default group's, its topic configs do not).
   */
  record TopicCreation(String group, int partitions, Map<String, String> topicConfigs) {
    static TopicCreation of(Map<String, String> source, String topic) {
      String group = "default";
      for (String g : list(source.getOrDefault("topic.creation.groups", ""))) {
        String prefix = "topic.creation." + g + ".";
        boolean included = matchesAny(source.getOrDefault(prefix + "include", ""), topic);
        boolean excluded = matchesAny(source.getOrDefault(prefix + "exclude", ""), topic);
        if (included && !excluded) {
          group = g;
          break;
        }
      }
      String prefix = "topic.creation." + group + ".";
      int partitions =
          Integer.parseInt(
              source.getOrDefault(
                  prefix + "partitions", source.get("topic.creation.default.partitions")));
      Map<String, String> configs = new LinkedHashMap<>();
      source.forEach(
          (k, v) -> {
            if (k.startsWith(prefix)) {
              String name = k.substring(prefix.length());
              if (!Set.of("include", "exclude", "partitions", "replication.factor")
                  .contains(name)) {
                configs.put(name, v);
              }
            }
          });
      return new TopicCreation(group, partitions, configs);
    }

    private static boolean matchesAny(String regexList, String topic) {
      List<String> regexes = list(regexList);
      return !regexes.isEmpty()
          && Pattern.compile(String.join("|", regexes)).matcher(topic).matches();
    }
  }

  static List<String> list(String value) {
    return value == null
        ? List.of()
        : Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }

  static Path examplesDir() {
    return PluginWorker.repoRoot().resolve("config-examples");
  }

  static List<Path> exampleFiles() {
    try (Stream<Path> files = Files.list(examplesDir())) {
      return files
          .filter(p -> p.toString().endsWith(".json") || p.toString().endsWith(".properties"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<Example> jsonExamples() {
    return exampleFiles().stream()
        .filter(p -> p.toString().endsWith(".json"))
        .map(ConfigExamplesIT::read)
        .toList();
  }

  /**
   * The source example (JSON) that writes the topics a sink example reads; exactly one, all of its
   * topics.
   */
  static Example producerOf(Example sink) {
    Set<String> read = new LinkedHashSet<>(sink.topics());
    List<Example> producers =
        jsonExamples().stream()
            .filter(Example::isSource)
            .filter(s -> s.topics().stream().anyMatch(read::contains))
            .toList();
    assertThat(producers)
        .as("%s: the source examples writing its topics %s", sink.fileName(), read)
        .hasSize(1);
    Example producer = producers.get(0);
    assertThat(read)
        .as(
            "%s reads every topic of %s (manifests and markers are on the strict topic, chunks"
                + " on the partitioned one), and no other",
            sink.fileName(), producer.fileName())
        .containsExactlyInAnyOrderElementsOf(producer.topics());
    return producer;
  }

  static Example read(Path file) {
    try {
      Map<String, String> config = new LinkedHashMap<>();
      String name;
      if (file.toString().endsWith(".json")) {
        JsonNode root = JSON.readTree(file.toFile());
        name = root.path("name").asText();
        root.path("config")
            .fields()
            .forEachRemaining(
                e -> {
                  assertThat(e.getValue().isTextual())
                      .as(
                          "%s: %s must be a JSON string (Connect configs are" + " strings)",
                          file.getFileName(), e.getKey())
                      .isTrue();
                  config.put(e.getKey(), e.getValue().asText());
                });
      } else {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
          p.load(r);
        }
        name = p.getProperty("name");
        p.stringPropertyNames().stream()
            .filter(k -> !k.equals("name"))
            .sorted()
            .forEach(k -> config.put(k, p.getProperty(k)));
      }
      assertThat(name).as("%s: connector name", file.getFileName()).isNotBlank();
      return new Example(file, name, config);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void examplesCoverEveryModeForSourceAndSinkInBothFormats() {
    assertThat(exampleFiles())
        .extracting(p -> p.getFileName().toString())
        .contains(
            "source-strict.json",
            "source-strict.properties",
            "source-pgoutput-v1.json",
            "source-pgoutput-v1.properties",
            "sink.json",
            "sink.properties",
            "source-strict-chunked.json",
            "source-strict-chunked.properties",
            "sink-strict-chunked.json",
            "sink-strict-chunked.properties",
            "source-partitioned.json",
            "source-partitioned.properties",
            "sink-partitioned.json",
            "sink-partitioned.properties");
    // a source and a sink example for every mode
    for (boolean source : List.of(true, false)) {
      assertThat(
              jsonExamples().stream()
                  .filter(e -> e.isSource() == source)
                  .map(Example::mode)
                  .collect(Collectors.toSet()))
          .as(source ? "source modes" : "sink modes")
          .containsExactlyInAnyOrder(Mode.values());
    }
  }

  @Test
  void everyPropertiesFileSaysWhatItsJsonTwinSays() {
    for (Path file : exampleFiles()) {
      if (file.toString().endsWith(".properties")) {
        Path twin =
            file.resolveSibling(file.getFileName().toString().replace(".properties", ".json"));
        Example properties = read(file);
        Example json = read(twin);
        assertThat(properties.name()).as(file.getFileName().toString()).isEqualTo(json.name());
        assertThat(properties.config())
            .as(file.getFileName().toString())
            .containsExactlyInAnyOrderEntriesOf(json.config());
      }
    }
  }

  @Test
  void everyJsonExampleHasItsOwnNameAndSourcesDoNotShareSlotsIdentitiesOrTopics() {
    List<Example> examples = jsonExamples();
    assertThat(examples).extracting(Example::name).doesNotHaveDuplicates();
    List<Example> sources = examples.stream().filter(Example::isSource).toList();
    // so that every source example can run next to every other one on the same server and cluster
    // source.id and dataset.id are optional: the connector's name and database.dbname then
    for (String key : List.of("slot.name", "source.id", "dataset.id")) {
      assertThat(sources)
          .extracting(
              s ->
                  s.config()
                      .getOrDefault(
                          key,
                          switch (key) {
                            case "source.id" -> s.name();
                            case "dataset.id" -> s.config().get("database.dbname");
                            default -> null;
                          }))
          .as(key)
          .doesNotContainNull()
          .doesNotHaveDuplicates();
    }
    assertThat(sources.stream().flatMap(s -> s.topics().stream()).toList())
        .as("topics of the source examples")
        .doesNotHaveDuplicates();
  }

  @Test
  void everyExampleKeepsTheSettingsEnvelopesNeed() {
    for (Path file : exampleFiles()) {
      Example example = read(file);
      Map<String, String> c = example.config();
      String what = example.fileName();
      assertThat(c)
          .as(what)
          .containsEntry("key.converter", "org.apache.kafka.connect.storage.StringConverter")
          .containsEntry("value.converter", PluginWorker.CONVERTER_CLASS);
      if (example.isSource()) {
        keepsSourceSettings(example);
      } else {
        keepsSinkSettings(example);
      }
    }
  }

  private static void keepsSourceSettings(Example example) {
    Map<String, String> c = example.config();
    String what = example.fileName() + " (" + example.mode() + ")";
    // one replication slot is one ordered stream: one task
    assertThat(c)
        .as(what)
        .containsEntry("tasks.max", "1")
        .containsEntry("topic.creation.default.partitions", "1")
        .containsKey("topic.creation.default.replication.factor")
        .containsEntry("database.hostname", SOURCE_HOST_PLACEHOLDER)
        .containsKey("topic.strict");
    // the strict topic has one partition (commit order), whichever creation group it falls into
    TopicCreation strict = TopicCreation.of(c, c.get("topic.strict"));
    assertThat(strict.partitions()).as("%s: partitions of the strict topic", what).isEqualTo(1);
    switch (example.mode()) {
      case STRICT -> {
        // one transaction is one record, up to dataset.strict.max_envelope_bytes: producer and
        // topic must
        // take that size
        long envelope = example.longValue("dataset.strict.max_envelope_bytes", -1);
        assertThat(envelope).as("%s: dataset.strict.max_envelope_bytes", what).isPositive();
        // the largest record is the envelope plus 16 KiB of record overhead; buffer.memory must
        // hold it too
        assertThat(
                example.longValue(
                    "producer.override.max.request.size", KAFKA_DEFAULT_MAX_REQUEST_SIZE))
            .as("%s: producer.override.max.request.size", what)
            .isGreaterThanOrEqualTo(envelope + 16384);
        assertThat(example.longValue("producer.override.buffer.memory", 33_554_432))
            .as("%s: producer.override.buffer.memory", what)
            .isGreaterThanOrEqualTo(envelope + 16384);
        assertThat(strict.topicConfigs())
            .as("%s: max.message.bytes of the strict topic", what)
            .containsKey("max.message.bytes");
        assertThat(Long.parseLong(strict.topicConfigs().get("max.message.bytes")))
            .as("%s: max.message.bytes of the strict topic", what)
            .isGreaterThanOrEqualTo(envelope);
      }
      case STRICT_CHUNKED, PARTITIONED -> {
        // every record is a chunk (at most dataset.chunk.max_bytes), a manifest or a marker:
        // Kafka's
        // default sizes take them, and the envelope size settings have no use here
        assertThat(example.longValue("dataset.chunk.max_bytes", DEFAULT_CHUNK_MAX_BYTES))
            .as("%s: dataset.chunk.max_bytes", what)
            .isLessThanOrEqualTo(DEFAULT_CHUNK_MAX_BYTES);
        assertThat(c)
            .as("%s: no message-size overrides without envelopes", what)
            .doesNotContainKeys(
                "producer.override.max.request.size", "dataset.strict.max_envelope_bytes");
        assertThat(c.keySet())
            .as("%s: no topic max.message.bytes without envelopes", what)
            .noneMatch(k -> k.startsWith("topic.creation.") && k.endsWith(".max.message.bytes"));
      }
    }
    if (example.mode() == Mode.STRICT_CHUNKED) {
      assertThat(c).as(what).containsEntry("dataset.mode", "strict_transaction_order");
    }
    if (example.mode() == Mode.PARTITIONED) {
      String partitioned = c.get("topic.partitioned");
      assertThat(partitioned)
          .as("%s: topic.partitioned", what)
          .isNotBlank()
          .isNotEqualTo(c.get("topic.strict"));
      assertThat(c)
          .as(what)
          .containsKeys(
              "dataset.partitioned.partition_count",
              "dataset.partitioned.ownership_keys",
              "dataset.partitioned.null_key_policy",
              "dataset.partitioned.key_change_policy")
          .doesNotContainKey("dataset.strict_chunking.max_changes_per_chunk");
      // Connect creates the lane topic with exactly partition_count partitions, through its own
      // group
      TopicCreation lanes = TopicCreation.of(c, partitioned);
      assertThat(lanes.group())
          .as("%s: topic.creation group of %s", what, partitioned)
          .isNotEqualTo("default");
      assertThat(lanes.partitions())
          .as("%s: partitions of %s", what, partitioned)
          .isEqualTo(Integer.parseInt(c.get("dataset.partitioned.partition_count")));
    }
  }

  private static void keepsSinkSettings(Example example) {
    Map<String, String> c = example.config();
    Example producer = producerOf(example);
    String what =
        example.fileName() + " (reads " + producer.fileName() + ", " + producer.mode() + ")";
    assertThat(c).as(what).containsEntry("connection.url", TARGET_URL_PLACEHOLDER);
    if (producer.mode() == Mode.PARTITIONED) {
      // the lanes spread over the tasks; more tasks than partitions (lanes + the strict one) would
      // idle
      int partitions =
          Integer.parseInt(producer.config().get("dataset.partitioned.partition_count")) + 1;
      assertThat(example.tasksMax()).as("%s: tasks.max", what).isBetween(1, partitions);
    } else {
      assertThat(example.tasksMax()).as("%s: tasks.max (one strict partition)", what).isEqualTo(1);
    }
    if (producer.mode() == Mode.STRICT) {
      long envelope = producer.longValue("dataset.strict.max_envelope_bytes", -1);
      assertThat(example.longValue("consumer.override.max.partition.fetch.bytes", -1))
          .as("%s: consumer.override.max.partition.fetch.bytes", what)
          .isGreaterThanOrEqualTo(envelope);
    } else {
      assertThat(c)
          .as("%s: chunks fit the consumer's default fetch size", what)
          .doesNotContainKey("consumer.override.max.partition.fetch.bytes");
    }
    // a lost worker's partitions go to another task within seconds, not after the default 45 s
    // session
    // timeout (docs/operations.md, "Losing a worker"): static membership where one task, else a
    // short session
    if (example.tasksMax() == 1) {
      assertThat(c)
          .as("%s: static membership", what)
          .containsEntry("consumer.override.group.instance.id", example.name());
    } else {
      assertThat(c)
          .as("%s: static membership needs tasks.max=1", what)
          .doesNotContainKey("consumer.override.group.instance.id")
          .containsEntry("consumer.override.session.timeout.ms", "6000");
    }
  }

  @TestFactory
  Stream<DynamicTest> everyExampleValidatesWithoutErrorsAndRuns() {
    return exampleFiles().stream()
        .map(
            file ->
                DynamicTest.dynamicTest(file.getFileName().toString(), () -> deploy(read(file))));
  }

  private static void deploy(Example example) throws IOException {
    ConnectRestClient rest = PluginWorker.rest();
    try (TestScope scope = PluginWorker.stack().newScope(example.name())) {
      try {
        // a source example needs the source server, a sink example the target server, each with the
        // schema
        PostgresDatabase db = example.isSource() ? scope.sourceDatabase() : scope.targetDatabase();
        db.execute(Files.readString(examplesDir().resolve("shop-schema.sql")));
        Map<String, String> topics = scopeTopics(scope, example);
        Map<String, String> config = substitute(example, scope, db, topics);
        if (!example.isSource()) {
          createTopicsAsTheSourceWould(producerOf(example), topics);
        }

        ValidationResult validation = rest.validate(example.connectorClass(), config);
        assertThat(validation.messages())
            .as("validation errors of %s", example.fileName())
            .isEmpty();
        assertThat(validation.errorCount()).isZero();

        if (example.file().toString().endsWith(".properties")) {
          return; // same settings as its JSON twin (asserted above), which is deployed to RUNNING
        }
        String name = scope.connectorName(example.name());
        rest.createConnector(JSON.writeValueAsString(Map.of("name", name, "config", config)));
        rest.awaitRunning(name, example.tasksMax(), ConnectRestClient.DEFAULT_AWAIT);
        if (example.isSource()) {
          // Connect creates the topics (topic.creation.*) with the first records, and one
          // transaction
          // of two changes arrives as the mode publishes it
          db.executeInTransaction(
              "INSERT INTO orders VALUES (1, 7, 'new', 12.50, now())",
              "INSERT INTO order_line VALUES (1, 1, 'sku-1', 2, 6.25)");
          await()
              .atMost(WAIT)
              .failFast("connector FAILED", notFailed(name))
              .ignoreExceptions()
              .untilAsserted(() -> assertOneTransactionPublished(example, topics));
        }
      } finally {
        PluginWorker.deleteConnectors(scope);
      }
    }
  }

  /**
   * The records of the one two-change transaction of {@link #deploy}, as the example's mode
   * publishes it.
   */
  private static void assertOneTransactionPublished(Example source, Map<String, String> topics) {
    KafkaBroker broker = PluginWorker.stack().broker();
    Mode mode = source.mode();
    String strictTopic = topics.get(source.config().get("topic.strict"));
    List<KafkaRecord> strict = broker.readAll(strictTopic);
    List<KafkaRecord> all = new ArrayList<>(strict);
    assertThat(strict)
        .extracting(r -> r.headerAsString(KIND))
        .as("%s: kinds on the strict topic", source.fileName())
        .containsExactlyElementsOf(mode.strictTopicKindsOfOneTransaction());
    assertThat(broker.describeTopic(strictTopic).partitions())
        .as("partitions of the strict topic")
        .hasSize(1);
    // the record that closes the transaction carries the transaction's counts
    assertThat(strict.get(strict.size() - 1).headerAsString(COUNTS))
        .isEqualTo("dml=2 ddl=0 source_total=2");
    if (mode == Mode.PARTITIONED) {
      String lanesTopic = topics.get(source.config().get("topic.partitioned"));
      assertThat(broker.describeTopic(lanesTopic).partitions())
          .as(
              "partitions of the partitioned topic,"
                  + " created by Connect from the example's topic.creation group")
          .hasSize(Integer.parseInt(source.config().get("dataset.partitioned.partition_count")));
      List<KafkaRecord> lanes = broker.readAll(lanesTopic);
      // order 1 and its line: the line is owned by order_id (public.order_line:order_id), the order
      // by its
      // primary key id, both the int8 1, so they share one lane, and so one chunk
      assertThat(lanes)
          .extracting(r -> r.headerAsString(KIND))
          .as("%s: kinds on the partitioned topic", source.fileName())
          .containsExactly("chunk");
      assertThat(lanes.get(0).headerAsString(COUNTS)).isEqualTo("dml=2 ddl=0 source_total=2");
      all.addAll(lanes);
    }
    assertThat(all)
        .extracting(r -> r.headerAsString(BOUNDARY_MODE))
        .as("boundary mode headers")
        .containsOnly(mode.wire);
    assertThat(all)
        .extracting(KafkaRecord::keyAsString)
        .as("one transaction boundary key on every record")
        .containsOnly(all.get(0).keyAsString());
  }

  /**
   * Each sink example with the source example whose topics it reads: together, the target equals
   * the source.
   */
  @TestFactory
  Stream<DynamicTest> sourceAndSinkExamplesTogetherReplicateTheShopTables() {
    List<Example> sinks = jsonExamples().stream().filter(e -> !e.isSource()).toList();
    assertThat(sinks)
        .extracting(Example::mode)
        .as("a source and sink pair for every mode")
        .containsExactlyInAnyOrder(Mode.values());
    return sinks.stream()
        .map(
            sink -> {
              Example source = producerOf(sink);
              return DynamicTest.dynamicTest(
                  source.fileName() + " + " + sink.fileName() + " (" + source.mode() + ")",
                  () -> replicate(source, sink));
            });
  }

  private static void replicate(Example sourceExample, Example sinkExample) throws Exception {
    ConnectRestClient rest = PluginWorker.rest();
    KafkaBroker broker = PluginWorker.stack().broker();
    Mode mode = sourceExample.mode();
    try (TestScope scope = PluginWorker.stack().newScope("examplePair")) {
      try {
        PostgresDatabase source = scope.sourceDatabase();
        PostgresDatabase target = scope.targetDatabase();
        String schema = Files.readString(examplesDir().resolve("shop-schema.sql"));
        source.execute(schema);
        target.execute(schema);
        Map<String, String> topics = scopeTopics(scope, sourceExample);
        String strictTopic = topics.get(sourceExample.config().get("topic.strict"));
        String sourceName = scope.connectorName("source");
        rest.createConnector(sourceName, substitute(sourceExample, scope, source, topics));
        rest.awaitRunning(sourceName);
        source.executeInTransaction(
            "INSERT INTO orders VALUES (1, 42, 'paid', 30.00, now())",
            "INSERT INTO order_line VALUES (1, 1, 'sku-1', 2, 10.00), (1, 2, 'sku-2', 1, 10.00)",
            "INSERT INTO payment VALUES (1, 1, 30.00, now())");
        source.executeInTransaction(
            "UPDATE orders SET status = 'shipped' WHERE id = 1",
            "DELETE FROM order_line WHERE line_no = 2",
            "UPDATE orders SET total = 20.00 WHERE id = 1");
        // eight orders with their lines and payments in one transaction: several lanes when
        // partitioned
        source.executeInTransaction(
            "INSERT INTO orders SELECT i, 100 + i, 'new', 3 * i, now() FROM generate_series(2, 9) i",
            "INSERT INTO order_line SELECT i, l, 'sku-' || l, 1, i FROM generate_series(2, 9) i,"
                + " generate_series(1, 3) l",
            "INSERT INTO payment SELECT i, i, 3 * i, now() FROM generate_series(2, 9) i");
        // the source created the topics (topic.creation.*); the sink reads them from the start
        await()
            .atMost(WAIT)
            .failFast("source FAILED", notFailed(sourceName))
            .ignoreExceptions()
            .until(
                () ->
                    broker.readAll(strictTopic).stream()
                            .filter(
                                r ->
                                    Set.of("envelope", "commit_marker")
                                        .contains(r.headerAsString(KIND)))
                            .count()
                        == 3);
        if (mode == Mode.PARTITIONED) {
          String lanesTopic = topics.get(sourceExample.config().get("topic.partitioned"));
          assertThat(
                  broker.readAll(lanesTopic).stream()
                      .map(KafkaRecord::partition)
                      .distinct()
                      .count())
              .as("lanes used by the three transactions")
              .isGreaterThan(1);
        }
        String sinkName = scope.connectorName("sink");
        rest.createConnector(sinkName, substitute(sinkExample, scope, target, topics));
        rest.awaitRunning(sinkName, sinkExample.tasksMax(), ConnectRestClient.DEFAULT_AWAIT);
        for (String table : List.of("orders", "order_line", "payment")) {
          String sql = "SELECT t::text FROM " + table + " t ORDER BY t::text";
          await()
              .atMost(WAIT)
              .failFast("sink FAILED", notFailed(sinkName))
              .failFast("source FAILED", notFailed(sourceName))
              .until(() -> source.query(sql).equals(target.query(sql)));
        }
        assertThat(target.queryLong("SELECT count(*) FROM orders")).isEqualTo(9);
        assertThat(target.queryLong("SELECT count(*) FROM order_line")).isEqualTo(1 + 8 * 3);
        assertThat(target.queryLong("SELECT count(*) FROM payment")).isEqualTo(9);
        // what docker/monitoring/ promises: the exporter exposes every metric the dashboard names
        Set<String> exposed = DashboardMetrics.scrape(sourceName);
        exposed.addAll(DashboardMetrics.scrape(sinkName));
        assertThat(exposed)
            .as("metrics the Prometheus JMX exporter exposes for this pair")
            .containsAll(DashboardMetrics.dashboardNames());
      } finally {
        PluginWorker.deleteConnectors(scope);
      }
    }
  }

  /**
   * For Awaitility's failFast: throws, with the trace, once the connector or one of its tasks
   * FAILED.
   */
  private static ThrowingRunnable notFailed(String connector) {
    return () -> {
      ConnectorStatus status = PluginWorker.rest().status(connector);
      if (status.isFailed()) {
        throw new AssertionError(connector + " FAILED: " + status + "\n" + status.firstTrace());
      }
    };
  }

  /**
   * Each topic the example names (and, for a sink, the topics of its source), mapped to a topic of
   * the scope.
   */
  private static Map<String, String> scopeTopics(TestScope scope, Example example) {
    Map<String, String> topics = new LinkedHashMap<>();
    for (String topic : example.topics()) {
      topics.put(topic, scope.topic(topic));
    }
    return topics;
  }

  /** Creates the sink's topics as Connect would for the source example that writes them. */
  private static void createTopicsAsTheSourceWould(Example source, Map<String, String> topics) {
    topics.forEach(
        (exampleTopic, scopeTopic) -> {
          TopicCreation creation = TopicCreation.of(source.config(), exampleTopic);
          PluginWorker.stack()
              .broker()
              .createTopic(scopeTopic, creation.partitions(), creation.topicConfigs());
        });
  }

  /**
   * Replaces the placeholders (hosts, ports, databases, users, slots) by this scope's real ones,
   * and every example topic name (in {@code topic.strict}, {@code topic.partitioned}, {@code
   * topics} and the {@code include} lists of topic creation groups) by its scope topic.
   */
  private static Map<String, String> substitute(
      Example example, TestScope scope, PostgresDatabase db, Map<String, String> topics) {
    Map<String, String> c = new LinkedHashMap<>(example.config());
    if (example.isSource()) {
      replace(c, "database.hostname", db.host());
      replace(c, "database.port", Integer.toString(db.port()));
      replace(c, "database.dbname", db.name());
      replace(c, "database.user", db.user());
      replace(c, "database.password", db.password());
      replace(c, "slot.name", scope.slotName());
      replace(c, "publication.name", scope.publicationName());
      if (c.containsKey("source.id")) { // else the connector's (scope) name
        replace(c, "source.id", scope.prefix() + "-src");
      }
      if (c.containsKey("kafka.bootstrap.servers")) { // else Connect's topic creation
        replace(c, "kafka.bootstrap.servers", PluginWorker.stack().broker().bootstrapServers());
      }
      replace(c, "topic.strict", scopeTopic(topics, c.get("topic.strict")));
      if (example.mode() == Mode.PARTITIONED) {
        replace(c, "topic.partitioned", scopeTopic(topics, c.get("topic.partitioned")));
      }
      for (String group : list(c.get("topic.creation.groups"))) {
        String include = "topic.creation." + group + ".include";
        if (c.containsKey(include)) {
          c.put(
              include,
              list(c.get(include)).stream()
                  .map(t -> topics.getOrDefault(t, t))
                  .collect(Collectors.joining(",")));
        }
      }
    } else {
      replace(c, "connection.url", db.jdbcUrl());
      replace(c, "connection.user", db.user());
      replace(c, "connection.password", db.password());
      replace(
          c,
          "topics",
          list(c.get("topics")).stream()
              .map(t -> scopeTopic(topics, t))
              .collect(Collectors.joining(",")));
    }
    return c;
  }

  private static String scopeTopic(Map<String, String> topics, String exampleTopic) {
    assertThat(topics).as("a scope topic for %s", exampleTopic).containsKey(exampleTopic);
    return topics.get(exampleTopic);
  }

  private static void replace(Map<String, String> config, String key, String value) {
    assertThat(config).as("the example sets %s", key).containsKey(key);
    config.put(key, value);
  }
}
