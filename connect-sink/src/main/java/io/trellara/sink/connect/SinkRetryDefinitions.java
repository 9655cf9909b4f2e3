package io.trellara.sink.connect;

import static io.trellara.sink.connect.TrellaraSinkConfig.GROUP_RETRIES;
import static io.trellara.sink.connect.TrellaraSinkConfig.RETRY_BACKOFF_MAX_MS;
import static io.trellara.sink.connect.TrellaraSinkConfig.RETRY_BACKOFF_MS;
import static io.trellara.sink.connect.TrellaraSinkConfig.RETRY_DURATION_MS;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** The sink's Retries settings: the one retry policy's figures. */
final class SinkRetryDefinitions {
  private SinkRetryDefinitions() {}

  static void define(ConfigDef d) {
    int o = 0;
    d.define(
        RETRY_DURATION_MS,
        Type.LONG,
        600_000L,
        ConfigDef.Range.atLeast(0),
        Importance.LOW,
        "How long a target transaction is retried on transient failures (connection loss, serialization"
            + " failure, deadlock, server starting or shutting down) before the task stops: a bound in time,"
            + " so a target outage up to this long is ridden out with nothing lost or applied twice.",
        GROUP_RETRIES,
        ++o,
        Width.SHORT,
        "Max retry time (ms)");
    d.define(
        RETRY_BACKOFF_MS,
        Type.LONG,
        200L,
        ConfigDef.Range.atLeast(1),
        Importance.LOW,
        "First retry delay, doubled per attempt.",
        GROUP_RETRIES,
        ++o,
        Width.SHORT,
        "Initial backoff (ms)");
    d.define(
        RETRY_BACKOFF_MAX_MS,
        Type.LONG,
        2_000L,
        ConfigDef.Range.atLeast(1),
        Importance.LOW,
        "Largest retry delay. Short so that a target that comes back is written to within about two"
            + " seconds however long it was away; an attempt is one connection and a login, and after the"
            + " first three a long outage logs one line per 30 s.",
        GROUP_RETRIES,
        ++o,
        Width.SHORT,
        "Max backoff (ms)");
  }
}
