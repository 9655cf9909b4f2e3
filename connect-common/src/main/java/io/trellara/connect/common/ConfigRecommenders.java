package io.trellara.connect.common;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;

/** Recommenders that let Confluent-style UIs render a setting as a choice. */
public final class ConfigRecommenders {
  private ConfigRecommenders() {}

  /** Always visible; always the same valid values. */
  public static ConfigDef.Recommender fixed(List<?> values) {
    return new ConfigDef.Recommender() {
      @Override
      public List<Object> validValues(String name, Map<String, Object> parsedConfig) {
        return Arrays.asList(values.toArray());
      }

      @Override
      public boolean visible(String name, Map<String, Object> parsedConfig) {
        return true;
      }
    };
  }
}
