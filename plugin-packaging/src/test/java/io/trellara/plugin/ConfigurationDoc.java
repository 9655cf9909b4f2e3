package io.trellara.plugin;

import io.trellara.converter.TrellaraConverterConfig;
import io.trellara.sink.connect.TrellaraSinkConfig;
import io.trellara.source.connect.TrellaraSourceConfig;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.ConfigKey;
import org.apache.kafka.common.config.types.Password;

/**
 * Renders docs/configuration.md from the ConfigDefs of the source connector, the sink connector and
 * the converter: every key with group, type, default, valid values, importance and doc.
 * Deterministic (same ConfigDefs, same bytes on every machine); {@link ConfigurationDocTest} fails
 * when the file is stale.
 */
final class ConfigurationDoc {
  static final String REGENERATE_PROPERTY = "trellara.docs.regenerate";
  static final String REGENERATE_COMMAND =
      "./mvnw -B -q -pl plugin-packaging -am test -Dtest=ConfigurationDocTest"
          + " -Dsurefire.failIfNoSpecifiedTests=false -D"
          + REGENERATE_PROPERTY
          + "=true";

  /** One documented component. */
  record Component(String title, String className, String intro, ConfigDef def) {}

  static List<Component> components() {
    return List.of(
        new Component(
            "Source connector",
            "io.trellara.source.connect.TrellaraSourceConnector",
            "Captures committed PostgreSQL transactions through a pgoutput replication slot and publishes"
                + " each as one envelope.",
            TrellaraSourceConfig.CONFIG_DEF),
        new Component(
            "Sink connector",
            "io.trellara.sink.connect.TrellaraSinkConnector",
            "Applies each source transaction to the target PostgreSQL as one target transaction.",
            TrellaraSinkConfig.CONFIG_DEF),
        new Component(
            "Converter",
            "io.trellara.converter.TrellaraConverter",
            "Set as `key.converter`/`value.converter` (worker or connector); its settings take the"
                + " converter's prefix, e.g. `value.converter.render=json`.",
            TrellaraConverterConfig.CONFIG_DEF));
  }

  static String render() {
    StringBuilder out = new StringBuilder();
    out.append("# Configuration reference\n\n");
    out.append(
            "<!-- Generated from the ConfigDefs by plugin-packaging/src/test/java/io/trellara/plugin/"
                + "ConfigurationDoc.java. Do not edit by hand. Regenerate with:\n     ")
        .append(REGENERATE_COMMAND)
        .append(" -->\n\n");
    out.append(
        "Every setting of the Trellara plugin, generated from the connectors' `ConfigDef`s (the same"
            + " definitions `PUT /connector-plugins/{plugin}/config/validate` and Connect UIs use). Kafka"
            + " Connect's own connector settings (`name`, `connector.class`, `tasks.max`, `topics`,"
            + " `key.converter`, `value.converter`, `producer.override.*`, `consumer.override.*`,"
            + " `topic.creation.*`, ...) are documented by Apache Kafka; working examples are in"
            + " [`config-examples/`](../config-examples/).\n\n");
    for (Component c : components()) {
      out.append("- [").append(c.title()).append("](#").append(anchor(c.title())).append(")");
      out.append(": ")
          .append(groups(c.def()).stream().collect(Collectors.joining(", ")))
          .append('\n');
    }
    out.append('\n');
    for (Component c : components()) {
      renderComponent(out, c);
    }
    return out.toString();
  }

  private static void renderComponent(StringBuilder out, Component c) {
    out.append("## ").append(c.title()).append("\n\n");
    out.append("`").append(c.className()).append("`. ").append(c.intro()).append("\n\n");
    for (String group : groups(c.def())) {
      out.append("### ").append(c.title()).append(": ").append(group).append("\n\n");
      out.append("| key | type | default | valid values | importance |\n");
      out.append("|---|---|---|---|---|\n");
      List<ConfigKey> keys = keys(c.def(), group);
      for (ConfigKey k : keys) {
        out.append("| [`")
            .append(k.name)
            .append("`](#")
            .append(anchor(k.name))
            .append(") | ")
            .append(type(k))
            .append(" | ")
            .append(cell(defaultValue(k)))
            .append(" | ")
            .append(cell(validValues(k)))
            .append(" | ")
            .append(lower(k.importance.name()))
            .append(" |\n");
      }
      out.append('\n');
      for (ConfigKey k : keys) {
        out.append("#### `").append(k.name).append("`\n\n");
        out.append(k.documentation == null ? "" : k.documentation.trim()).append("\n\n");
        out.append("- Display name: ")
            .append(Objects.requireNonNullElse(k.displayName, k.name))
            .append('\n');
        out.append("- Group: ")
            .append(group)
            .append(" (order ")
            .append(k.orderInGroup)
            .append(")\n");
        out.append("- Type: ").append(type(k)).append('\n');
        out.append("- Default: ").append(defaultValue(k)).append('\n');
        out.append("- Valid values: ").append(validValues(k)).append('\n');
        out.append("- Importance: ").append(lower(k.importance.name())).append("\n\n");
      }
    }
  }

  /** Groups in definition order; keys without a group under "Other". */
  static List<String> groups(ConfigDef def) {
    List<String> groups = new ArrayList<>(def.groups());
    if (def.configKeys().values().stream().anyMatch(k -> k.group == null)
        && !groups.contains("Other")) {
      groups.add("Other");
    }
    return groups;
  }

  private static List<ConfigKey> keys(ConfigDef def, String group) {
    return def.configKeys().values().stream()
        .filter(k -> group.equals(k.group == null ? "Other" : k.group))
        .sorted(Comparator.comparingInt((ConfigKey k) -> k.orderInGroup).thenComparing(k -> k.name))
        .toList();
  }

  private static String type(ConfigKey k) {
    return lower(k.type.name());
  }

  static String defaultValue(ConfigKey k) {
    if (!k.hasDefault()) {
      return "none (required)";
    }
    Object value = k.defaultValue;
    if (value == null) {
      return "null";
    }
    if (k.type == ConfigDef.Type.PASSWORD) {
      // never print a secret: an empty default is shown as such, anything else is hidden
      String secret = value instanceof Password p ? p.value() : String.valueOf(value);
      return secret == null || secret.isEmpty() ? "\"\" (empty)" : "[hidden]";
    }
    if (k.type == ConfigDef.Type.STRING && value.equals(System.getProperty("java.io.tmpdir"))) {
      return "the worker JVM's `java.io.tmpdir`";
    }
    String text = ConfigDef.convertToString(value, k.type);
    return text == null || text.isEmpty() ? "\"\" (empty)" : "`" + text + "`";
  }

  static String validValues(ConfigKey k) {
    if (k.validator != null) {
      return k.validator.toString();
    }
    if (k.recommender != null) {
      List<Object> values = k.recommender.validValues(k.name, Map.of());
      if (values != null && !values.isEmpty()) {
        return values.stream().map(String::valueOf).collect(Collectors.joining(", "));
      }
    }
    return switch (k.type) {
      case BOOLEAN -> "true, false";
      case LIST -> "comma-separated list";
      case INT -> "32-bit integer";
      case LONG -> "64-bit integer";
      default -> "any";
    };
  }

  private static String cell(String text) {
    return text.replace("|", "\\|");
  }

  private static String lower(String s) {
    return s.toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * GitHub's heading anchor: lower case, punctuation other than '-' and '_' dropped, spaces to '-'.
   */
  static String anchor(String heading) {
    StringBuilder a = new StringBuilder();
    for (char ch : heading.toLowerCase(java.util.Locale.ROOT).toCharArray()) {
      if (Character.isLetterOrDigit(ch) || ch == '-' || ch == '_') {
        a.append(ch);
      } else if (ch == ' ') {
        a.append('-');
      }
    }
    return a.toString();
  }
}
