package io.trellara.source.connect;

import static io.trellara.source.connect.TrellaraSourceConfig.*;

import io.trellara.source.routing.KeyChangePolicy;
import io.trellara.source.routing.OwnershipKeys;
import java.util.List;
import java.util.Map;

/**
 * The source's cross-field rules, written once: {@code validate()} reports them as ConfigValue
 * errors and the connector and the task enforce them at start. Each error names the setting and
 * says what to change.
 */
final class SourceConfigRules {
  private SourceConfigRules() {}

  /**
   * Kafka Connect settings that would let a record go missing: any {@code errors.tolerance} but
   * none, any transform. Checked on the raw settings, so {@code validate()} reports them even when
   * other fields fail.
   */
  static List<String[]> frameworkErrors(Map<?, ?> originals) {
    List<String[]> errors = new java.util.ArrayList<>();
    Object tolerance = originals.get(ERRORS_TOLERANCE);
    if (tolerance != null && !"none".equalsIgnoreCase(tolerance.toString().trim())) {
      errors.add(
          new String[] {
            ERRORS_TOLERANCE,
            ERRORS_TOLERANCE
                + "="
                + tolerance
                + " is refused: every"
                + " record of the source carries a transaction or part of one, and Kafka Connect counts a"
                + " record it skips (a failed send such as RecordTooLargeException) as delivered, so the"
                + " replication slot would move past a transaction Kafka never received: data loss. Remove "
                + ERRORS_TOLERANCE
                + " or set it to none; a record that cannot be sent stops the task instead."
          });
    }
    Object transforms = originals.get(TRANSFORMS);
    if (transforms != null && !transforms.toString().isBlank()) {
      errors.add(
          new String[] {
            TRANSFORMS,
            TRANSFORMS
                + "="
                + transforms
                + " is refused: every record of the"
                + " source carries a transaction or part of one (checksummed, counted in its manifest), so a"
                + " transform that drops or rewrites a record loses or corrupts data, and a dropped record"
                + " counts as delivered. Remove "
                + TRANSFORMS
                + " from the source; filter with"
                + " "
                + TABLE_INCLUDE_LIST
                + " / the publication, or on the sink."
          });
    }
    return errors;
  }

  /**
   * The keys parse, the signing key is listed, and the converter writes the bytes that are signed.
   */
  private static void authentication(TrellaraSourceConfig c, List<String[]> errors) {
    try {
      if (RecordSigning.of(c) != RecordSigning.OFF
          && "json".equalsIgnoreCase(String.valueOf(c.originals().get("value.converter.render")))) {
        errors.add(
            new String[] {
              "value.converter.render",
              "render=json writes JSON, not the protobuf bytes a record is signed over: use"
                  + " render=protobuf with record authentication"
            });
      }
    } catch (org.apache.kafka.common.config.ConfigException e) {
      errors.add(
          new String[] {io.trellara.connect.common.auth.AuthDefinitions.MODE, e.getMessage()});
    }
  }

  /**
   * Cross-field rules, written once: reported by validate() and enforced at start. Empty when fine.
   */
  static List<String[]> crossFieldErrors(TrellaraSourceConfig c) {
    List<String[]> errors = new java.util.ArrayList<>();
    errors.addAll(frameworkErrors(c.originals()));
    records(c, errors);
    errors.addAll(TopicCreationRules.errors(c, SourceSettingsMapper.requiredTopics(c)));
    errors.addAll(BrokerlessRules.errors(c, SourceSettingsMapper.requiredTopics(c)));
    identity(c, errors);
    authentication(c, errors);
    errors.addAll(SignalDefinitions.errors(c));
    if (!c.getString(HEARTBEAT_ACTION_QUERY).isBlank() && c.getLong(HEARTBEAT_INTERVAL_MS) == 0) {
      errors.add(
          new String[] {
            HEARTBEAT_ACTION_QUERY,
            HEARTBEAT_ACTION_QUERY
                + " runs at every heartbeat, and "
                + HEARTBEAT_INTERVAL_MS
                + "=0 writes none. Set "
                + HEARTBEAT_INTERVAL_MS
                + " (for example 10000), or leave "
                + HEARTBEAT_ACTION_QUERY
                + " empty."
          });
    }
    if (c.getInt(PROTOCOL_VERSION) == 1
        && "true".equalsIgnoreCase(String.valueOf(c.originals().get(STREAMING)).trim())) {
      errors.add(
          new String[] {
            STREAMING,
            "pgoutput protocol 1 cannot stream in-progress transactions. Set "
                + STREAMING
                + "=false, or use "
                + PROTOCOL_VERSION
                + "=2."
          });
    }
    if (AUTOCREATE_FILTERED.equals(c.getString(PUBLICATION_AUTOCREATE))
        && c.getList(TABLE_INCLUDE_LIST).isEmpty()) {
      errors.add(
          new String[] {
            TABLE_INCLUDE_LIST,
            "List the tables to capture (schema.table, comma-separated)"
                + " so the publication can be created, or set "
                + PUBLICATION_AUTOCREATE
                + "=disabled and"
                + " create publication "
                + c.getString(PUBLICATION_NAME)
                + " yourself."
          });
    }
    if (c.partitioned()) {
      if (c.getInt(STRICT_CHUNKING) > 0) {
        errors.add(
            new String[] {
              STRICT_CHUNKING,
              "Strict chunking is a sub-option of"
                  + " strict_transaction_order; partitioned_scale_mode always publishes chunks. Remove "
                  + STRICT_CHUNKING
                  + " or set "
                  + DATASET_MODE
                  + "="
                  + MODE_STRICT
                  + "."
            });
      }
      if (!KeyChangePolicy.fromConfigName(c.getString(KEY_CHANGE_POLICY)).planned()) {
        errors.add(
            new String[] {
              KEY_CHANGE_POLICY,
              c.getString(KEY_CHANGE_POLICY)
                  + " is a declared policy"
                  + " name without a planner: the partition planner fails closed unless ownership moves are"
                  + " handled by emit_move. Use emit_move, or quarantine to refuse moves."
            });
      }
      try {
        OwnershipKeys.parse(c.getList(OWNERSHIP_KEYS));
      } catch (IllegalArgumentException e) {
        errors.add(
            new String[] {
              OWNERSHIP_KEYS,
              e.getMessage() + ". Write schema.table:col1|col2, with" + " primary-key columns."
            });
      }
      if (c.partitionedTopic().equals(c.strictTopic())) {
        errors.add(
            new String[] {
              TOPIC_PARTITIONED,
              "The partitioned topic must differ from the strict topic"
                  + " ("
                  + c.strictTopic()
                  + ")."
            });
      }
    }
    return errors;
  }

  /** source.id defaults to the connector's name: one of them must be there. */
  private static void identity(TrellaraSourceConfig c, List<String[]> errors) {
    if (c.sourceId().isEmpty()) {
      errors.add(
          new String[] {
            SOURCE_ID,
            SOURCE_ID
                + " is empty and the configuration names no connector ("
                + TrellaraSourceConfig.CONNECTOR_NAME
                + ") to take it from. Set "
                + SOURCE_ID
                + "."
          });
    }
  }

  /**
   * The largest record must pass the producer. The connector sees only its own producer.override.*
   * settings: a worker-level producer.max.request.size or producer.buffer.memory is invisible here,
   * hence Kafka's defaults when no override is set.
   */
  private static void records(TrellaraSourceConfig c, List<String[]> errors) {
    long needed = c.largestRecordBytes();
    String setting = c.largestRecordSetting();
    long maxRequest =
        producerSetting(c, PRODUCER_MAX_REQUEST_SIZE, KAFKA_DEFAULT_MAX_REQUEST_SIZE, errors);
    long buffer = producerSetting(c, PRODUCER_BUFFER_MEMORY, KAFKA_DEFAULT_BUFFER_MEMORY, errors);
    for (Object[] p :
        new Object[][] {
          {PRODUCER_MAX_REQUEST_SIZE, maxRequest}, {PRODUCER_BUFFER_MEMORY, buffer}
        }) {
      String key = (String) p[0];
      long value = (Long) p[1];
      if (value >= 0 && value < needed) {
        String source =
            c.originals().containsKey(key)
                ? key + "=" + value
                : key
                    + " is not set, so Kafka's default "
                    + value
                    + " applies (a worker-level producer."
                    + key.substring("producer.override.".length())
                    + " is invisible to the connector)";
        errors.add(
            new String[] {
              setting,
              "The largest record of this flow is "
                  + c.largestRecordText()
                  + ", but "
                  + source
                  + ": the producer would refuse it and stop the task. Set "
                  + key
                  + " to at least "
                  + needed
                  + " on the connector (the worker's"
                  + " connector.client.config.override.policy must allow it), or lower "
                  + setting
                  + "."
            });
      }
    }
  }

  private static long producerSetting(
      TrellaraSourceConfig c, String key, long kafkaDefault, List<String[]> errors) {
    Object v = c.originals().get(key);
    if (v == null || v.toString().isBlank()) {
      return kafkaDefault;
    }
    try {
      return Long.parseLong(v.toString().trim());
    } catch (NumberFormatException e) {
      errors.add(new String[] {key, key + "=" + v + " is not a number of bytes."});
      return -1;
    }
  }
}
