package io.trellara.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trellara.converter.TrellaraConverterConfig;
import io.trellara.sink.connect.TrellaraSinkConfig;
import io.trellara.source.connect.TrellaraSourceConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

/**
 * The docs are true: every JSON block of README.md and docs/*.md (a fenced {@code ```json} block)
 * and every JSON file of config-examples/ that is a connector configuration — {@code {"name": ...,
 * "config": {...}}}, a bare map with {@code connector.class}, or a bare map of dotted keys — is
 * checked against the connectors' ConfigDefs. Connect ignores keys it does not know, so a misspelt
 * or invented key in a doc runs silently with the default. Accepted besides the connector's own
 * keys: Connect's own connector settings for that kind of connector (a sink key such as {@code
 * topics} on a source is refused), {@code topic.creation.<group>.*} for a listed group, the
 * converter's settings under its prefix, and keys of another connector's block only when that
 * connector and its keys are listed in {@link #OTHER_CONNECTORS}.
 */
class DocumentedConfigKeysTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern JSON_BLOCK =
      Pattern.compile("^```json\\s*\\n(.*?)^```", Pattern.MULTILINE | Pattern.DOTALL);

  private static final String SOURCE = "io.trellara.source.connect.TrellaraSourceConnector";
  private static final String SINK = "io.trellara.sink.connect.TrellaraSinkConnector";
  private static final String CONVERTER = "io.trellara.converter.TrellaraConverter";

  /** Connect's own settings of every connector. */
  private static final Set<String> CONNECT_KEYS =
      Set.of(
          "name",
          "connector.class",
          "tasks.max",
          "tasks.max.enforce",
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
          "errors.retry.delay.max.ms");

  private static final List<String> CONNECT_PREFIXES =
      List.of(
          "transforms.",
          "predicates.",
          "key.converter.",
          "value.converter.",
          "header.converter.",
          "admin.override.");

  /** Connect's settings of source connectors only. */
  private static final Set<String> SOURCE_CONNECT_KEYS =
      Set.of(
          "topic.creation.groups",
          "exactly.once.support",
          "transaction.boundary",
          "transaction.boundary.interval.ms",
          "offsets.storage.topic");

  private static final List<String> SOURCE_CONNECT_PREFIXES =
      List.of("producer.override.", "topic.creation.default.");

  /** Connect's settings of sink connectors only. */
  private static final Set<String> SINK_CONNECT_KEYS = Set.of("topics", "topics.regex");

  private static final List<String> SINK_CONNECT_PREFIXES =
      List.of("consumer.override.", "errors.deadletterqueue.");

  /**
   * Connectors other than Trellara's that a doc may show (e.g. Debezium beside Trellara in a
   * comparison), each with the keys of its own a block may use. Empty: no doc shows one today.
   */
  private static final Map<String, Set<String>> OTHER_CONNECTORS = Map.of();

  /** One connector configuration found in a doc. */
  record Block(String where, Map<String, String> config) {}

  @Test
  void everyKeyOfEveryDocumentedConnectorConfigurationIsKnown() throws IOException {
    List<Block> blocks = blocks();
    assertThat(blocks)
        .as("connector configurations found in the docs and examples")
        .hasSizeGreaterThanOrEqualTo(9);
    List<String> unknown = new ArrayList<>();
    for (Block block : blocks) {
      for (String key : block.config().keySet()) {
        String why = unknownKey(block.config(), key);
        if (why != null) {
          unknown.add(block.where() + ": " + key + " (" + why + ")");
        }
      }
    }
    assertThat(unknown)
        .as("keys Connect would ignore silently (misspelt, invented or of another connector)")
        .isEmpty();
  }

  @Test
  void anInventedKeyIsFound() {
    Map<String, String> config =
        Map.of("connector.class", SINK, "table.create", "missing", "topics", "t");
    assertThat(unknownKey(config, "table.create")).isNotNull();
    assertThat(unknownKey(config, "topics")).isNull();
    assertThat(unknownKey(Map.of("connector.class", SOURCE, "topics", "t"), "topics"))
        .as("a sink's Connect setting on a source")
        .isNotNull();
    assertThat(
            unknownKey(
                Map.of("value.converter", CONVERTER, "value.converter.rendr", "json"),
                "value.converter.rendr"))
        .isNotNull();
  }

  /** Why the key is unknown to the block's connector, or null when it is known. */
  static String unknownKey(Map<String, String> config, String key) {
    String connector = config.get("connector.class");
    boolean source = SOURCE.equals(connector);
    boolean sink = SINK.equals(connector);
    if (connector != null && !source && !sink) {
      Set<String> keys = OTHER_CONNECTORS.get(connector);
      if (keys == null) {
        return "connector " + connector + " is not Trellara's and not listed in OTHER_CONNECTORS";
      }
      return keys.contains(key) || connectKey(key, true, true, config) ? null : "not listed";
    }
    boolean bothKinds = connector == null; // a fragment: either connector's keys
    if ((source || bothKinds) && known(TrellaraSourceConfig.CONFIG_DEF, key)) {
      return null;
    }
    if ((source || bothKinds) && key.startsWith(TrellaraSourceConfig.KAFKA_ADMIN_PREFIX)) {
      return null;
    }
    if ((sink || bothKinds) && known(TrellaraSinkConfig.CONFIG_DEF, key)) {
      return null;
    }
    if (converterKey(config, key)) {
      return converterKeyKnown(key) ? null : "not a setting of " + CONVERTER;
    }
    if (connectKey(key, source || bothKinds, sink || bothKinds, config)) {
      return null;
    }
    return "not in the " + (source ? "source's" : sink ? "sink's" : "connectors'") + " ConfigDef";
  }

  private static boolean known(ConfigDef def, String key) {
    return def.names().contains(key);
  }

  private static boolean converterKey(Map<String, String> config, String key) {
    for (String role : List.of("key.converter", "value.converter", "header.converter")) {
      if (key.startsWith(role + ".") && CONVERTER.equals(config.get(role))) {
        return true;
      }
    }
    return false;
  }

  private static boolean converterKeyKnown(String key) {
    String setting = key.substring(key.indexOf("converter.") + "converter.".length());
    return TrellaraConverterConfig.CONFIG_DEF.names().contains(setting);
  }

  private static boolean connectKey(
      String key, boolean source, boolean sink, Map<String, String> config) {
    if (CONNECT_KEYS.contains(key) || CONNECT_PREFIXES.stream().anyMatch(key::startsWith)) {
      return true;
    }
    if (source) {
      if (SOURCE_CONNECT_KEYS.contains(key)
          || SOURCE_CONNECT_PREFIXES.stream().anyMatch(key::startsWith)) {
        return true;
      }
      for (String group : list(config.get("topic.creation.groups"))) {
        if (key.startsWith("topic.creation." + group + ".")) {
          return true;
        }
      }
    }
    return sink
        && (SINK_CONNECT_KEYS.contains(key)
            || SINK_CONNECT_PREFIXES.stream().anyMatch(key::startsWith));
  }

  private static List<String> list(String value) {
    return value == null
        ? List.of()
        : Stream.of(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }

  /** Every connector configuration of README.md, docs/*.md and config-examples/*.json. */
  static List<Block> blocks() throws IOException {
    Path root = PluginWorker.repoRoot();
    List<Path> markdown = new ArrayList<>();
    markdown.add(root.resolve("README.md"));
    try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(markdown::add);
    }
    List<Block> blocks = new ArrayList<>();
    for (Path file : markdown) {
      String text = Files.readString(file, StandardCharsets.UTF_8);
      Matcher m = JSON_BLOCK.matcher(text);
      while (m.find()) {
        int line = text.substring(0, m.start()).split("\n", -1).length;
        String where = root.relativize(file) + ":" + line;
        addIfConfig(blocks, where, parse(where, m.group(1)));
      }
    }
    try (Stream<Path> examples = Files.list(root.resolve("config-examples"))) {
      for (Path file : examples.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
        String where = root.relativize(file).toString();
        addIfConfig(blocks, where, parse(where, Files.readString(file, StandardCharsets.UTF_8)));
      }
    }
    return blocks;
  }

  private static JsonNode parse(String where, String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new AssertionError(where + ": a json block that is not JSON: " + e.getMessage(), e);
    }
  }

  /**
   * Adds the node when it is a connector configuration: {"name", "config": {...}}, or a map with
   * connector.class, or a map of string values whose keys are dotted (a fragment of one).
   */
  private static void addIfConfig(List<Block> blocks, String where, JsonNode node) {
    if (!node.isObject()) {
      return;
    }
    JsonNode config = node.path("config").isObject() ? node.path("config") : node;
    boolean wrapped = config != node;
    boolean bare = node.has("connector.class") || fragment(node);
    if (!wrapped && !bare) {
      return; // another JSON document (a conformance vector, a REST answer)
    }
    Map<String, String> map = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = config.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      map.put(e.getKey(), e.getValue().asText());
    }
    blocks.add(new Block(where, map));
  }

  private static boolean fragment(JsonNode node) {
    if (node.isEmpty()) {
      return false;
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!e.getKey().contains(".") || !e.getValue().isValueNode()) {
        return false;
      }
    }
    return true;
  }
}
