package io.trellara.sink.connect;

import io.trellara.converter.TrellaraConverter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The sink's cross-field rules, written once: {@code validate()} reports them as errors on their
 * keys, and the connector and its tasks refuse to start with them. Each is a setting that would let
 * data be lost silently, let a topic writer reach further than the operator allowed, or make tasks
 * fail (at start, or after a worker is lost) where nothing restarts them. {@link #warnings} are
 * safe settings that are slow to recover.
 */
final class SinkConfigRules {
  static final String ERRORS_TOLERANCE = "errors.tolerance";
  static final String VALUE_CONVERTER = "value.converter";
  static final String OFFSET_RESET = "consumer.override.auto.offset.reset";
  static final String TASKS_MAX = "tasks.max";
  static final String INSTANCE_ID = "consumer.override.group.instance.id";
  static final String GROUP_PROTOCOL = "consumer.override.group.protocol";
  static final String SESSION_TIMEOUT = "consumer.override.session.timeout.ms";
  static final String TRANSFORMS = "transforms";
  static final String ISOLATION_LEVEL = "consumer.override.isolation.level";

  /**
   * Kafka's default consumer session timeout (classic protocol) and broker-side one (consumer
   * protocol).
   */
  static final long DEFAULT_SESSION_TIMEOUT_MS = 45_000;

  /** Consumer settings the consumer group protocol (KIP-848) refuses: the broker decides them. */
  private static final List<String> CLASSIC_ONLY =
      List.of(
          SESSION_TIMEOUT,
          "consumer.override.heartbeat.interval.ms",
          "consumer.override.partition.assignment.strategy");

  /** Lives in connect-runtime, which the plugin does not compile against. */
  static final String BYTE_ARRAY_CONVERTER =
      "org.apache.kafka.connect.converters.ByteArrayConverter";

  /** A broken rule: the setting and what to do. */
  record Problem(String key, String message) {}

  private SinkConfigRules() {}

  static List<Problem> check(Map<String, String> props) {
    List<Problem> out = new ArrayList<>();
    if ("all".equalsIgnoreCase(props.getOrDefault(ERRORS_TOLERANCE, "none").trim())) {
      out.add(
          new Problem(
              ERRORS_TOLERANCE,
              "errors.tolerance=all would let a transaction that fails"
                  + " verification or apply vanish without trace. Remove it (the default 'none' stops the task,"
                  + " which is what a transaction-preserving sink must do)."));
    }
    try {
      RecordAuthenticator.of(
          io.trellara.connect.common.auth.AuthSettings.of(props, false), k -> {});
    } catch (org.apache.kafka.common.config.ConfigException e) {
      out.add(new Problem(io.trellara.connect.common.auth.AuthDefinitions.MODE, e.getMessage()));
    }
    String converter = props.get(VALUE_CONVERTER);
    if (converter != null
        && !converter.equals(TrellaraConverter.class.getName())
        && !converter.equals(BYTE_ARRAY_CONVERTER)) {
      out.add(
          new Problem(
              VALUE_CONVERTER,
              "value.converter="
                  + converter
                  + " cannot verify Trellara checksums."
                  + " Use "
                  + TrellaraConverter.class.getName()
                  + " (or "
                  + BYTE_ARRAY_CONVERTER
                  + ", with which the task verifies each message itself)."));
    }
    // consumer.override.allow.auto.create.topics is not required: a topic the sink's consumer has
    // the broker
    // create at its defaults (1 partition, 1 MB records) is never written to before the source
    // starts, and the
    // source grows such a topic to what it needs (SourceTopics)
    String reset = props.getOrDefault(OFFSET_RESET, "earliest").trim();
    if (!"earliest".equalsIgnoreCase(reset)) {
      out.add(
          new Problem(
              OFFSET_RESET,
              OFFSET_RESET
                  + "="
                  + reset
                  + " would start a partition that has no"
                  + " progress recorded in the target somewhere other than its first record, skipping every"
                  + " transaction before it. Remove it (Connect's default for sinks is 'earliest'): the sink resumes"
                  + " from its progress in the target wherever it has one."));
    }
    if (!props.getOrDefault(TRANSFORMS, "").isBlank()) {
      // any: even a predicate-only or routing transform hands the task a record the worker rebuilt,
      // and the sink's guarantees are about the bytes the source wrote; none has a use here
      out.add(
          new Problem(
              TRANSFORMS,
              "transforms="
                  + props.get(TRANSFORMS).trim()
                  + ": a Single Message Transform can rewrite"
                  + " the record value whose checksum the sink verifies (and its topic and partition, which"
                  + " its progress and ordering rely on), between the converter and the task. The sink"
                  + " accepts no transforms: remove the setting."));
    }
    String isolation = props.getOrDefault(ISOLATION_LEVEL, "read_committed").trim();
    if (!"read_committed".equalsIgnoreCase(isolation)) {
      // an error, not a warning: it buys nothing (the source's records are the same either way)
      // and hands the task what a transactional writer aborted, which no read_committed reader of
      // the topic (an audit, another sink) ever sees
      out.add(
          new Problem(
              ISOLATION_LEVEL,
              ISOLATION_LEVEL
                  + "="
                  + isolation
                  + " would deliver records of aborted Kafka transactions: a source killed"
                  + " mid-transaction under exactly-once leaves part of a transaction aborted on the"
                  + " topic, and any transactional writer can write and abort records that the sink"
                  + " would apply although the topic, read committed, never held them. Set it to"
                  + " read_committed (or remove it and set the worker's"
                  + " consumer.isolation.level=read_committed)."));
    }
    checkGroupMembership(props, out);
    TrellaraSinkConfig config;
    try {
      config = new TrellaraSinkConfig(props);
    } catch (RuntimeException e) {
      return out; // the ConfigDef's own validation reports it
    }
    if (config.getList(TrellaraSinkConfig.ALLOWLIST).isEmpty()) {
      out.add(
          new Problem(
              TrellaraSinkConfig.ALLOWLIST,
              "Name the target tables the sink may write"
                  + " (schema.table or schema.*), or '*' on purpose to allow every table outside the sink's own"
                  + " and the system schemas. Anyone who can write to the topics chooses which tables a record"
                  + " touches, so an empty allowlist is refused."));
    }
    try {
      config.relationMapper();
    } catch (RuntimeException e) {
      out.add(new Problem(TrellaraSinkConfig.MAPPING, e.getMessage()));
    }
    if (config.getLong(TrellaraSinkConfig.STAGING_RETENTION_MS)
        <= config.getLong(TrellaraSinkConfig.BARRIER_MAX_WAIT_MS)) {
      out.add(
          new Problem(
              TrellaraSinkConfig.STAGING_RETENTION_MS,
              "staging.retention.ms must exceed barrier.max.wait.ms: a chunk of a barrier still"
                  + " allowed to wait would be deleted, and the barrier fail as MISSING_CHUNK."));
    }
    if ("replay".equals(config.getString(TrellaraSinkConfig.DDL_APPLY).toLowerCase(Locale.ROOT))
        && !config.getBoolean(TrellaraSinkConfig.DDL_REPLAY_TRUST)) {
      out.add(
          new Problem(
              TrellaraSinkConfig.DDL_APPLY,
              "ddl.apply=replay runs statement text from the topic"
                  + " on the target: it trusts every writer of the topic to choose SQL for the target. Set "
                  + TrellaraSinkConfig.DDL_REPLAY_TRUST
                  + "=true to say so, or use the default 'structured'."));
    }
    return out;
  }

  /**
   * Static membership and the consumer group protocol, checked before any task joins: a setting
   * that makes every task fail at start, or that leaves a task FAILED after the loss of a worker
   * until someone restarts it.
   */
  private static void checkGroupMembership(Map<String, String> props, List<Problem> out) {
    String instanceId = props.getOrDefault(INSTANCE_ID, "").trim();
    boolean consumerProtocol =
        "consumer".equalsIgnoreCase(props.getOrDefault(GROUP_PROTOCOL, "").trim());
    if (!instanceId.isEmpty() && tasksMax(props) > 1) {
      out.add(
          new Problem(
              INSTANCE_ID,
              INSTANCE_ID
                  + " applies to every task of the connector, and tasks.max is "
                  + tasksMax(props)
                  + ": its tasks would join the sink's group with the same static member id"
                  + " and fence each other (FencedInstanceIdException). Static membership needs tasks.max=1; with"
                  + " more tasks remove it and shorten "
                  + SESSION_TIMEOUT
                  + " instead (docs/operations.md,"
                  + " \"Losing a worker\")."));
    }
    if (!instanceId.isEmpty() && consumerProtocol) {
      out.add(
          new Problem(
              INSTANCE_ID,
              "With "
                  + GROUP_PROTOCOL
                  + "=consumer a static member that vanished"
                  + " without leaving (a worker killed or lost) keeps its instance id until the broker's session"
                  + " timeout: the task that takes its place fails with UnreleasedInstanceIdException and stays"
                  + " FAILED. Use static membership with the classic protocol (remove "
                  + GROUP_PROTOCOL
                  + ")."));
    }
    if (consumerProtocol) {
      for (String key : CLASSIC_ONLY) {
        if (props.containsKey(key)) {
          out.add(
              new Problem(
                  key,
                  key
                      + " is refused by the consumer with "
                      + GROUP_PROTOCOL
                      + "=consumer (the broker's group.consumer.* settings decide it), so every task would"
                      + " fail at start. Remove one of the two."));
        }
      }
    }
  }

  /**
   * Settings that are safe but slow to recover from the loss of a worker, for a WARN at start:
   * without static membership a task's partitions wait out the dead consumer's session timeout
   * before another task gets them.
   */
  static List<String> warnings(Map<String, String> props) {
    if (!props.getOrDefault(INSTANCE_ID, "").trim().isEmpty()) {
      return List.of();
    }
    boolean consumerProtocol =
        "consumer".equalsIgnoreCase(props.getOrDefault(GROUP_PROTOCOL, "").trim());
    long session = DEFAULT_SESSION_TIMEOUT_MS;
    try {
      session = Long.parseLong(props.getOrDefault(SESSION_TIMEOUT, Long.toString(session)).trim());
    } catch (NumberFormatException e) {
      return List.of(); // the consumer itself refuses it
    }
    if (!consumerProtocol && session < DEFAULT_SESSION_TIMEOUT_MS) {
      return List.of();
    }
    String timeout =
        consumerProtocol
            ? "the broker's group.consumer.session.timeout.ms (45 s by default, and"
                + " no less than group.consumer.min.session.timeout.ms)"
            : "the consumer session timeout (" + session / 1000 + " s)";
    String remedy =
        tasksMax(props) == 1
            ? "set "
                + INSTANCE_ID
                + "=<a name unique to this connector> (static membership, tasks.max=1 only)"
            : "set " + SESSION_TIMEOUT + "=6000 and consumer.override.heartbeat.interval.ms=2000";
    return List.of(
        "When the worker running a task of this sink is lost (killed, or its host gone), its"
            + " partitions are applied again only after "
            + timeout
            + ": to resume within seconds, "
            + remedy
            + (consumerProtocol ? " with the classic group protocol" : "")
            + ". See docs/operations.md, \"Losing"
            + " a worker\". (A worker-wide consumer.session.timeout.ms is invisible to the connector.)");
  }

  private static int tasksMax(Map<String, String> props) {
    try {
      return Integer.parseInt(props.getOrDefault(TASKS_MAX, "1").trim());
    } catch (NumberFormatException e) {
      return 1; // Connect's own validation reports it
    }
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
