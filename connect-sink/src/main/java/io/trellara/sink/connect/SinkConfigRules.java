package io.trellara.sink.connect;

import io.trellara.converter.TrellaraConverter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The sink's cross-field rules, written once: {@code validate()} reports them as errors on their keys, and the
 * connector and its tasks refuse to start with them. Each is a setting that would let data be lost silently or
 * let a topic writer reach further than the operator allowed.
 */
final class SinkConfigRules {
    static final String ERRORS_TOLERANCE = "errors.tolerance";
    static final String VALUE_CONVERTER = "value.converter";
    static final String AUTO_CREATE = "consumer.override.allow.auto.create.topics";
    static final String OFFSET_RESET = "consumer.override.auto.offset.reset";
    /** Lives in connect-runtime, which the plugin does not compile against. */
    static final String BYTE_ARRAY_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter";

    /** A broken rule: the setting and what to do. */
    record Problem(String key, String message) {
    }

    private SinkConfigRules() {
    }

    static List<Problem> check(Map<String, String> props) {
        List<Problem> out = new ArrayList<>();
        if ("all".equalsIgnoreCase(props.getOrDefault(ERRORS_TOLERANCE, "none").trim())) {
            out.add(new Problem(ERRORS_TOLERANCE, "errors.tolerance=all would let a transaction that fails"
                    + " verification or apply vanish without trace. Remove it (the default 'none' stops the task,"
                    + " which is what a transaction-preserving sink must do)."));
        }
        String converter = props.get(VALUE_CONVERTER);
        if (converter != null && !converter.equals(TrellaraConverter.class.getName())
                && !converter.equals(BYTE_ARRAY_CONVERTER)) {
            out.add(new Problem(VALUE_CONVERTER, "value.converter=" + converter + " cannot verify Trellara checksums."
                    + " Use " + TrellaraConverter.class.getName() + " (or " + BYTE_ARRAY_CONVERTER
                    + ", with which the task verifies each message itself)."));
        }
        if (!"false".equalsIgnoreCase(props.getOrDefault(AUTO_CREATE, "").trim())) {
            out.add(new Problem(AUTO_CREATE, "Set " + AUTO_CREATE + "=false: the sink must never create the topics"
                    + " it reads. With Kafka's default settings a consumer that subscribes to a missing topic"
                    + " creates it with the broker's defaults (its partition count, max.message.bytes of about"
                    + " 1 MB) before the source connector can create it with the settings its transactions need."
                    + " (A worker-wide consumer setting is invisible to the connector, so the override is"
                    + " required.)"));
        }
        String reset = props.getOrDefault(OFFSET_RESET, "earliest").trim();
        if (!"earliest".equalsIgnoreCase(reset)) {
            out.add(new Problem(OFFSET_RESET, OFFSET_RESET + "=" + reset + " would start a partition that has no"
                    + " progress recorded in the target somewhere other than its first record, skipping every"
                    + " transaction before it. Remove it (Connect's default for sinks is 'earliest'): the sink resumes"
                    + " from its progress in the target wherever it has one."));
        }
        TrellaraSinkConfig config;
        try {
            config = new TrellaraSinkConfig(props);
        } catch (RuntimeException e) {
            return out; // the ConfigDef's own validation reports it
        }
        if (config.getList(TrellaraSinkConfig.ALLOWLIST).isEmpty()) {
            out.add(new Problem(TrellaraSinkConfig.ALLOWLIST, "Name the target tables the sink may write"
                    + " (schema.table or schema.*), or '*' on purpose to allow every table outside the sink's own"
                    + " and the system schemas. Anyone who can write to the topics chooses which tables a record"
                    + " touches, so an empty allowlist is refused."));
        }
        try {
            config.relationMapper();
        } catch (RuntimeException e) {
            out.add(new Problem(TrellaraSinkConfig.MAPPING, e.getMessage()));
        }
        if ("replay".equals(config.getString(TrellaraSinkConfig.DDL_APPLY).toLowerCase(Locale.ROOT))
                && !config.getBoolean(TrellaraSinkConfig.DDL_REPLAY_TRUST)) {
            out.add(new Problem(TrellaraSinkConfig.DDL_APPLY, "ddl.apply=replay runs statement text from the topic"
                    + " on the target: it trusts every writer of the topic to choose SQL for the target. Set "
                    + TrellaraSinkConfig.DDL_REPLAY_TRUST + "=true to say so, or use the default 'structured'."));
        }
        return out;
    }

    /** The message of every broken rule, for a start that must refuse. */
    static String describe(List<Problem> problems) {
        StringBuilder b = new StringBuilder("The sink cannot start:");
        for (Problem p : problems) {
            b.append("\n - ").append(p.key()).append(": ").append(p.message());
        }
        return b.toString();
    }
}
