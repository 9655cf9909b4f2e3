package io.trellara.source.connect;

import io.trellara.connect.common.PluginVersion;
import io.trellara.source.engine.SourcePreflight;
import io.trellara.source.engine.SourceProblem;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * Publishes each committed PostgreSQL transaction as one checksummed envelope. One task: a replication slot
 * is one ordered stream, and splitting it would break commit order.
 */
public class TrellaraSourceConnector extends SourceConnector {
    static final String TASKS_MAX = "tasks.max";
    private Map<String, String> props;

    @Override
    public void start(Map<String, String> props) {
        this.props = Map.copyOf(props);
        new TrellaraSourceConfig(props);
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
    }

    @Override
    public ConfigDef config() {
        return TrellaraSourceConfig.CONFIG_DEF;
    }

    @Override
    public String version() {
        return PluginVersion.VERSION;
    }

    @Override
    public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> connectorConfig) {
        // duplicates after a crash are by design, absorbed by the sink's transaction-level dedup
        return ExactlyOnceSupport.UNSUPPORTED;
    }

    /** Field validation, then cross-field rules, then the live checks against the server. */
    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config config = super.validate(connectorConfigs);
        Map<String, ConfigValue> values = SourceSettingsMapper.byName(config);
        boolean fieldsParse = values.values().stream().allMatch(v -> v.errorMessages().isEmpty());
        String tasksMax = connectorConfigs.get(TASKS_MAX);
        if (tasksMax != null && !tasksMax.trim().equals("1")) {
            SourceSettingsMapper.error(config, values, TASKS_MAX, "tasks.max=" + tasksMax + " but the source runs"
                    + " exactly one task: a replication slot is one stream in commit order, and splitting it would"
                    + " break transaction order. Set tasks.max=1; the sink scales out instead.");
        }
        if (!fieldsParse) {
            return config;
        }
        TrellaraSourceConfig parsed = new TrellaraSourceConfig(connectorConfigs);
        List<String[]> crossField = parsed.crossFieldErrors();
        for (String[] e : crossField) {
            SourceSettingsMapper.error(config, values, e[0], e[1]);
        }
        if (crossField.isEmpty()) {
            for (SourceProblem p : SourcePreflight.check(SourceSettingsMapper.settings(parsed))) {
                SourceSettingsMapper.error(config, values, p.property(), p.message());
            }
        }
        return config;
    }
}
