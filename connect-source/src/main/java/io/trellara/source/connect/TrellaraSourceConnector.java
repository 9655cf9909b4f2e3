package io.trellara.source.connect;

import io.trellara.connect.common.PluginVersion;
import io.trellara.source.kafka.SourceTopics;
import io.trellara.source.pg.SourcePreflight;
import io.trellara.source.pg.SourceProblem;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.ConnectorTransactionBoundaries;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes each committed PostgreSQL transaction as one checksummed envelope. One task: a
 * replication slot is one ordered stream, and splitting it would break commit order.
 */
public class TrellaraSourceConnector extends SourceConnector {
  private static final Logger LOG = LoggerFactory.getLogger(TrellaraSourceConnector.class);
  static final String TASKS_MAX = "tasks.max";
  private Map<String, String> props;

  /**
   * Refuses what validate() refuses, then creates or verifies the topics. The topic check runs
   * here, before any task exists, so a wrong topic fails the connector itself (one FAILED status
   * naming the topic) and a missing one exists with the right settings before a sink or the broker
   * can auto-create it at defaults. The task repeats the check at its own start: a task is also
   * restarted alone, without this method, and the topic may have been deleted and recreated since.
   */
  @Override
  public void start(Map<String, String> props) {
    TrellaraSourceConfig config = new TrellaraSourceConfig(props);
    refuseConfigErrors(config);
    String name = props.getOrDefault("name", "?");
    LOG.info(
        "Source connector {} starting: mode {}, strict topic {}{}, largest record {} bytes",
        name,
        config.boundary().wireMode(),
        config.strictTopic(),
        config.partitioned() ? ", partitioned topic " + config.partitionedTopic() : "",
        config.largestRecordBytes());
    ensureTopics(config);
    this.props = Map.copyOf(props);
    LOG.info("Source connector {} started", name);
  }

  /**
   * The cross-field rules, enforced: the first problem stops the start, the others are listed too.
   */
  static void refuseConfigErrors(TrellaraSourceConfig config) {
    List<String[]> errors = config.crossFieldErrors();
    if (!errors.isEmpty()) {
      throw new ConnectException(
          "The source configuration is refused: "
              + errors.stream().map(e -> e[0] + ": " + e[1]).collect(Collectors.joining(" | ")));
    }
  }

  /**
   * Creates missing topics and verifies them all, within topic.check.timeout.ms. Without
   * kafka.bootstrap.servers, nothing: Connect's topic creation makes the topics before the first
   * record (what it needs was checked by {@link BrokerlessRules}), and the task checks every
   * acknowledgement ({@link AcknowledgementCheck}).
   */
  static void ensureTopics(TrellaraSourceConfig config) {
    if (!config.ownKafkaAccess()) {
      LOG.info(
          "No kafka.bootstrap.servers: topics {} are created by Kafka Connect's topic creation"
              + " (topic.creation.*) at the first record; acknowledgements are checked",
          SourceSettingsMapper.requiredTopics(config).stream()
              .map(SourceTopics.Requirement::topic)
              .toList());
      return;
    }
    try {
      SourceTopics.ensure(SourceSettingsMapper.topicPlan(config));
    } catch (SourceTopics.TopicsException e) {
      throw new ConnectException("The source's topics are not usable: " + e.getMessage(), e);
    }
  }

  @Override
  public Class<? extends Task> taskClass() {
    return TrellaraSourceTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    Map<String, String> task = new HashMap<>(props);
    task.put(TrellaraSourceTask.TASK_ID, "0"); // names the task's JMX bean
    return List.of(task);
  }

  @Override
  public void stop() {
    LOG.info("Source connector {} stopped", props == null ? "?" : props.getOrDefault("name", "?"));
  }

  @Override
  public ConfigDef config() {
    return TrellaraSourceConfig.CONFIG_DEF;
  }

  @Override
  public String version() {
    return PluginVersion.VERSION;
  }

  /**
   * Every record carries a source offset that a restart resumes from without loss (the previous
   * closing record's on the records before a closing one), so Connect's transactional producer,
   * which writes the last offset of each Kafka transaction in it, never commits an offset past
   * records it did not commit.
   */
  @Override
  public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> connectorConfig) {
    return ExactlyOnceSupport.SUPPORTED;
  }

  /**
   * The task commits at each record that closes a source transaction (KafkaTransactionBoundaries).
   */
  @Override
  public ConnectorTransactionBoundaries canDefineTransactionBoundaries(
      Map<String, String> connectorConfig) {
    return ConnectorTransactionBoundaries.SUPPORTED;
  }

  /**
   * Field validation, then cross-field rules (among them errors.tolerance, transforms and the
   * producer's size limits), then the live checks against PostgreSQL and the existing topics (with
   * kafka.bootstrap.servers only).
   */
  @Override
  public Config validate(Map<String, String> connectorConfigs) {
    Config config = super.validate(connectorConfigs);
    Map<String, ConfigValue> values = SourceSettingsMapper.byName(config);
    boolean fieldsParse = values.values().stream().allMatch(v -> v.errorMessages().isEmpty());
    String tasksMax = connectorConfigs.get(TASKS_MAX);
    if (tasksMax != null && !tasksMax.trim().equals("1")) {
      SourceSettingsMapper.error(
          config,
          values,
          TASKS_MAX,
          "tasks.max="
              + tasksMax
              + " but the source runs"
              + " exactly one task: a replication slot is one stream in commit order, and splitting it would"
              + " break transaction order. Set tasks.max=1; the sink scales out instead.");
    }
    if (!fieldsParse) {
      for (String[] e : TrellaraSourceConfig.frameworkErrors(connectorConfigs)) {
        SourceSettingsMapper.error(config, values, e[0], e[1]);
      }
      return config;
    }
    TrellaraSourceConfig parsed = new TrellaraSourceConfig(connectorConfigs);
    List<String[]> crossField = parsed.crossFieldErrors();
    for (String[] e : crossField) {
      SourceSettingsMapper.error(config, values, e[0], e[1]);
    }
    if (crossField.isEmpty()) {
      for (SourceProblem p :
          SourcePreflight.check(SourceSettingsMapper.settings(parsed).database())) {
        SourceSettingsMapper.error(config, values, p.property(), p.message());
      }
      List<SourceTopics.Problem> topics =
          parsed.ownKafkaAccess()
              ? SourceTopics.inspect(SourceSettingsMapper.topicPlan(parsed))
              : List.of(); // no Kafka client of its own: BrokerlessRules said what it can
      for (SourceTopics.Problem p : topics) {
        SourceSettingsMapper.error(config, values, p.property(), p.message());
      }
    }
    return config;
  }
}
