package io.trellara.sink.connect;

import io.trellara.connect.common.PluginVersion;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies each source transaction to PostgreSQL as one target transaction, verified, exactly once.
 * {@code validate()} refuses settings that would lose data silently.
 */
public class TrellaraSinkConnector extends SinkConnector {
  private static final Logger LOG = LoggerFactory.getLogger(TrellaraSinkConnector.class);
  private Map<String, String> props;

  @Override
  public void start(Map<String, String> props) {
    List<SinkConfigRules.Problem> problems = SinkConfigRules.check(props);
    if (!problems.isEmpty()) {
      throw new ConnectException(SinkConfigRules.describe(problems));
    }
    for (String warning : SinkConfigRules.warnings(props)) {
      LOG.warn("Sink {}: {}", props.get("name"), warning);
    }
    this.props = Map.copyOf(props);
  }

  @Override
  public Class<? extends Task> taskClass() {
    return TrellaraSinkTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    List<Map<String, String>> configs = new ArrayList<>();
    for (int i = 0; i < maxTasks; i++) {
      Map<String, String> task = new HashMap<>(props);
      task.put(TrellaraSinkTask.TASK_ID, Integer.toString(i)); // names the task's JMX bean
      configs.add(task);
    }
    return configs;
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return TrellaraSinkConfig.CONFIG_DEF;
  }

  @Override
  public String version() {
    return PluginVersion.VERSION;
  }

  @Override
  public Config validate(Map<String, String> connectorConfigs) {
    Config config = super.validate(connectorConfigs);
    for (SinkConfigRules.Problem p : SinkConfigRules.check(connectorConfigs)) {
      error(config, p.key(), p.message());
    }
    return config;
  }

  private static void error(Config config, String name, String message) {
    for (ConfigValue v : config.configValues()) {
      if (v.name().equals(name)) {
        v.addErrorMessage(message);
        return;
      }
    }
    ConfigValue v = new ConfigValue(name);
    v.addErrorMessage(message);
    config.configValues().add(v);
  }
}
