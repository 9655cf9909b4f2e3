package io.trellara.sink.connect;

import io.trellara.connect.common.PluginVersion;
import io.trellara.converter.TrellaraConverter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;

/**
 * Applies each source transaction to PostgreSQL as one target transaction, verified, exactly once.
 * {@code validate()} refuses settings that would lose data silently.
 */
public class TrellaraSinkConnector extends SinkConnector {
    static final String ERRORS_TOLERANCE = "errors.tolerance";
    static final String VALUE_CONVERTER = "value.converter";
    /** Lives in connect-runtime, which the plugin does not compile against. */
    static final String BYTE_ARRAY_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter";
    private Map<String, String> props;

    @Override
    public void start(Map<String, String> props) {
        this.props = Map.copyOf(props);
        new TrellaraSinkConfig(props).relationMapper();
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
    public void stop() {
    }

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
        if ("all".equalsIgnoreCase(connectorConfigs.getOrDefault(ERRORS_TOLERANCE, "none").trim())) {
            error(config, ERRORS_TOLERANCE, "errors.tolerance=all would let a transaction that fails verification"
                    + " or apply vanish without trace. Remove it (the default 'none' stops the task, which is what"
                    + " a transaction-preserving sink must do).");
        }
        String converter = connectorConfigs.get(VALUE_CONVERTER);
        if (converter != null && !converter.equals(TrellaraConverter.class.getName())
                && !converter.equals(BYTE_ARRAY_CONVERTER)) {
            error(config, VALUE_CONVERTER, "value.converter=" + converter + " cannot verify Trellara checksums. Use "
                    + TrellaraConverter.class.getName() + " (or " + BYTE_ARRAY_CONVERTER
                    + ", with which the task verifies each message itself).");
        }
        try {
            new TrellaraSinkConfig(connectorConfigs).relationMapper();
        } catch (RuntimeException e) {
            error(config, TrellaraSinkConfig.MAPPING, e.getMessage());
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
