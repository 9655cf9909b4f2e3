package io.trellara.benchmarks.e2e.floor;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * A source that does nothing but hand Connect W1-shaped transactions at a steady rate ({@link
 * FloorShape}): what Connect, the converters and the producer cost per transaction when the
 * connector itself costs nothing.
 */
public class FloorSourceConnector extends SourceConnector {
  private Map<String, String> props;

  @Override
  public void start(Map<String, String> props) {
    this.props = props;
  }

  @Override
  public Class<? extends Task> taskClass() {
    return FloorSourceTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return List.of(props);
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return new ConfigDef();
  }

  @Override
  public String version() {
    return "bench";
  }
}
