package io.trellara.testplatform;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * Test-only source connector: emits {@code count} records {@code record-<i>} to {@code topic},
 * resuming from its committed source offset after a restart. With {@code fail.after} set, its task
 * fails after that many records (for fail-closed tests). Registered through META-INF/services, so
 * it works with every {@code plugin.discovery} mode.
 */
public class CountingSourceConnector extends SourceConnector {

  static final String TOPIC = "topic";
  static final String COUNT = "count";
  static final String FAIL_AFTER = "fail.after";

  static final ConfigDef CONFIG =
      new ConfigDef()
          .define(
              TOPIC,
              ConfigDef.Type.STRING,
              ConfigDef.NO_DEFAULT_VALUE,
              new ConfigDef.NonEmptyString(),
              ConfigDef.Importance.HIGH,
              "Topic to write to.")
          .define(
              COUNT,
              ConfigDef.Type.LONG,
              10L,
              ConfigDef.Range.atLeast(1),
              ConfigDef.Importance.HIGH,
              "How many records to emit in total.")
          .define(
              FAIL_AFTER,
              ConfigDef.Type.LONG,
              -1L,
              ConfigDef.Importance.LOW,
              "Fail the task after this many records (-1: never).");

  private Map<String, String> props;

  @Override
  public void start(Map<String, String> props) {
    new AbstractConfig(CONFIG, props); // fail at start on an invalid config, like real connectors
    this.props = Map.copyOf(props);
  }

  @Override
  public Class<? extends Task> taskClass() {
    return CountingSourceTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    List<Map<String, String>> configs = new ArrayList<>();
    configs.add(props);
    return configs;
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return CONFIG;
  }

  @Override
  public String version() {
    return "test";
  }
}
