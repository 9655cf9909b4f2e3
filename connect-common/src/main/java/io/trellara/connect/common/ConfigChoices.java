package io.trellara.connect.common;

import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;
import org.apache.kafka.common.config.ConfigDef;

/**
 * A setting whose values are an enum of {@link ConfigChoice}s: its allowed values, its validator
 * (and so the generated docs' "Valid values"), and its recommender (what a Confluent-style UI
 * offers), all from the enum.
 */
public final class ConfigChoices {
  private ConfigChoices() {}

  /** Every value's configuration name, in the enum's order. */
  public static <E extends Enum<E> & ConfigChoice> List<String> names(Class<E> type) {
    return names(type, e -> true);
  }

  /** The configuration names of the values {@code which} accepts, in the enum's order. */
  public static <E extends Enum<E> & ConfigChoice> List<String> names(
      Class<E> type, Predicate<E> which) {
    return Arrays.stream(type.getEnumConstants())
        .filter(which)
        .map(ConfigChoice::configName)
        .toList();
  }

  /** Accepts exactly the configuration names of the enum (case-sensitive, as they are written). */
  public static <E extends Enum<E> & ConfigChoice> ConfigDef.Validator validator(Class<E> type) {
    return ConfigDef.ValidString.in(names(type).toArray(new String[0]));
  }

  /** Offers every value of the enum. */
  public static <E extends Enum<E> & ConfigChoice> ConfigDef.Recommender recommender(
      Class<E> type) {
    return ConfigRecommenders.fixed(names(type));
  }

  /** Offers the values {@code which} accepts (e.g. only the ones a planner implements). */
  public static <E extends Enum<E> & ConfigChoice> ConfigDef.Recommender recommender(
      Class<E> type, Predicate<E> which) {
    return ConfigRecommenders.fixed(names(type, which));
  }

  /** The values for a doc string: {@code a, b, c}. */
  public static <E extends Enum<E> & ConfigChoice> String listed(Class<E> type) {
    return String.join(", ", names(type));
  }

  /** The value configured as {@code configName} (validated already: an unknown name is a bug). */
  public static <E extends Enum<E> & ConfigChoice> E of(Class<E> type, String configName) {
    for (E e : type.getEnumConstants()) {
      if (e.configName().equals(configName)) {
        return e;
      }
    }
    throw new IllegalArgumentException(
        "'" + configName + "' is not one of " + listed(type) + " (" + type.getSimpleName() + ")");
  }

  /** The configuration name most enums use: their constant's name in lower case. */
  public static String lowerCase(Enum<?> e) {
    return e.name().toLowerCase(java.util.Locale.ROOT);
  }
}
