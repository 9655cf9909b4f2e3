package io.trellara.source.kafka;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Kafka Connect's {@code topic.creation.*} settings of the connector (KIP-158), read the way the
 * worker reads them: {@code topic.creation.groups} lists groups, each with {@code include} and
 * {@code exclude} regular expressions over topic names; a topic belongs to the first listed group
 * that includes it and does not exclude it, else to {@code default}. A group's {@code partitions}
 * and {@code replication.factor} (-1: the broker's; unset: the default group's) size the topic,
 * every other key of the group is a topic config ({@code max.message.bytes}, {@code retention.ms},
 * ...).
 *
 * <p>The source creates its topics itself, before its first record, so the worker never gets to
 * apply these settings: the source does, and refuses those its records cannot live with.
 */
public final class TopicCreationGroups {
  /** The prefix of every setting read here. */
  public static final String PREFIX = "topic.creation.";

  static final String DEFAULT = "default";
  private static final String GROUPS = "groups";
  private static final String INCLUDE = "include";
  private static final String EXCLUDE = "exclude";
  private static final String PARTITIONS = "partitions";
  private static final String REPLICATION_FACTOR = "replication.factor";

  /** A setting that cannot be read, with its full name. */
  public static final class InvalidSetting extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final String setting;

    InvalidSetting(String setting, String message) {
      super(message);
      this.setting = setting;
    }

    public String setting() {
      return setting;
    }
  }

  /**
   * One group as it applies to a topic: its sizes (-1 when the group leaves them to the broker) and
   * topic configs, each under the full name of the setting that gave it.
   */
  public record Group(
      String name, int partitions, short replicationFactor, Map<String, String> configs) {
    /** The full setting name of a key of this group, e.g. topic.creation.default.partitions. */
    public String setting(String key) {
      return PREFIX + name + "." + key;
    }

    public Optional<Long> longConfig(String key) {
      String v = configs.get(key);
      if (v == null) {
        return Optional.empty();
      }
      try {
        return Optional.of(Long.parseLong(v.trim()));
      } catch (NumberFormatException e) {
        throw new InvalidSetting(setting(key), setting(key) + "=" + v + " is not a number.");
      }
    }
  }

  private record Rule(String name, List<Pattern> include, List<Pattern> exclude) {
    boolean matches(String topic) {
      return include.stream().anyMatch(p -> p.matcher(topic).matches())
          && exclude.stream().noneMatch(p -> p.matcher(topic).matches());
    }
  }

  private final Map<String, String> settings;
  private final List<Rule> rules = new ArrayList<>();

  private TopicCreationGroups(Map<String, String> settings) {
    this.settings = settings;
    for (String name : list(settings.get(GROUPS))) {
      if (name.equals(DEFAULT)) {
        continue; // the default group is always there, last
      }
      rules.add(new Rule(name, patterns(name, INCLUDE), patterns(name, EXCLUDE)));
    }
  }

  /**
   * Reads the settings under {@link #PREFIX}, given without it.
   *
   * @throws InvalidSetting when a regular expression does not compile
   */
  public static TopicCreationGroups of(Map<String, ?> withoutPrefix) {
    Map<String, String> s = new LinkedHashMap<>();
    withoutPrefix.forEach((k, v) -> s.put(k, v == null ? "" : v.toString()));
    return new TopicCreationGroups(s);
  }

  /** No settings at all: every topic in an empty default group. */
  public static TopicCreationGroups none() {
    return of(Map.of());
  }

  /**
   * The group {@code topic} belongs to.
   *
   * @throws InvalidSetting when its partitions or replication factor is not a number
   */
  public Group forTopic(String topic) {
    String name =
        rules.stream().filter(r -> r.matches(topic)).map(Rule::name).findFirst().orElse(DEFAULT);
    String prefix = name + ".";
    Map<String, String> configs = new LinkedHashMap<>();
    settings.forEach(
        (k, v) -> {
          if (k.startsWith(prefix)) {
            configs.put(k.substring(prefix.length()), v.trim());
          }
        });
    configs.remove(INCLUDE);
    configs.remove(EXCLUDE);
    int partitions = (int) size(name, PARTITIONS, configs.remove(PARTITIONS), Integer.MAX_VALUE);
    short rf =
        (short) size(name, REPLICATION_FACTOR, configs.remove(REPLICATION_FACTOR), Short.MAX_VALUE);
    return new Group(name, partitions, rf, Map.copyOf(configs));
  }

  /**
   * A group's partitions or replication factor; as in Connect, a group that does not set one takes
   * the default group's (other topic configs are not inherited).
   */
  private long size(String group, String key, String value, long max) {
    if ((value == null || value.isBlank()) && !group.equals(DEFAULT)) {
      return number(DEFAULT, key, settings.get(DEFAULT + "." + key), max);
    }
    return number(group, key, value, max);
  }

  private static long number(String group, String key, String value, long max) {
    if (value == null || value.isBlank()) {
      return -1;
    }
    try {
      long n = Long.parseLong(value.trim());
      if (n == 0 || n < -1 || n > max) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      String setting = PREFIX + group + "." + key;
      throw new InvalidSetting(
          setting,
          setting + "=" + value + " is not -1 (the broker's default) or a positive number.");
    }
  }

  private List<Pattern> patterns(String group, String key) {
    List<Pattern> p = new ArrayList<>();
    for (String regex : list(settings.get(group + "." + key))) {
      try {
        p.add(Pattern.compile(regex));
      } catch (PatternSyntaxException e) {
        String setting = PREFIX + group + "." + key;
        throw new InvalidSetting(
            setting,
            setting + " holds '" + regex + "', not a regular expression: " + e.getDescription());
      }
    }
    return p;
  }

  private static List<String> list(String value) {
    if (value == null || value.isBlank()) {
      return List.of();
    }
    return Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }
}
