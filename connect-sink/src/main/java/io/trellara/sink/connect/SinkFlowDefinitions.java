package io.trellara.sink.connect;

import static io.trellara.sink.connect.TrellaraSinkConfig.DATASET_IDS;
import static io.trellara.sink.connect.TrellaraSinkConfig.GROUP_FLOWS;
import static io.trellara.sink.connect.TrellaraSinkConfig.ORDER_MAX_LSN_ADVANCE;
import static io.trellara.sink.connect.TrellaraSinkConfig.SOURCE_IDS;
import static io.trellara.sink.connect.TrellaraSinkConfig.STAGING_FLOW_MAX_BYTES;
import static io.trellara.sink.connect.TrellaraSinkConfig.STAGING_RETENTION_MS;

import io.trellara.sink.postgres.settings.FlowBounds;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The sink's Flows settings: which flows it applies and how far a flow's position may jump, so a
 * record forged by a writer of the topic cannot move a flow where no real transaction follows.
 */
final class SinkFlowDefinitions {
  private SinkFlowDefinitions() {}

  static void define(ConfigDef d) {
    int o = 0;
    d.define(
        SOURCE_IDS,
        Type.LIST,
        "",
        Importance.MEDIUM,
        "The source ids (the source connector's source.id) whose transactions this sink applies,"
            + " comma-separated. A transaction of any other source is refused with FLOW_NOT_CONFIGURED and"
            + " nothing of it is applied. Empty (the default): any source; the first transaction of a flow"
            + " new to the target is then logged at INFO.",
        GROUP_FLOWS,
        ++o,
        Width.LONG,
        "Source ids");
    d.define(
        DATASET_IDS,
        Type.LIST,
        "",
        Importance.MEDIUM,
        "The dataset ids (the source connector's dataset.id) whose transactions this sink applies,"
            + " comma-separated; any other is refused with FLOW_NOT_CONFIGURED. Empty (the default): any.",
        GROUP_FLOWS,
        ++o,
        Width.LONG,
        "Dataset ids");
    d.define(
        ORDER_MAX_LSN_ADVANCE,
        Type.LONG,
        FlowBounds.DEFAULT_MAX_LSN_ADVANCE_BYTES,
        ConfigDef.Range.atLeast(1),
        Importance.LOW,
        "How many bytes of WAL a flow's commit LSN may advance from one applied transaction to the next"
            + " (a flow's first transaction: from the newest applied for any flow of its source). A"
            + " transaction further ahead is refused with LSN_TOO_FAR_AHEAD and no position moves: one forged"
            + " record at FFFFFFFF/FFFFFFFF would otherwise put every later real transaction of the flow out of"
            + " order. The default, 1 TiB, is days of WAL of a busy primary: a flow whose tables are written"
            + " rarely on a primary that writes much WAL for others may need more (the refusal names the"
            + " distance).",
        GROUP_FLOWS,
        ++o,
        Width.SHORT,
        "Max LSN advance (bytes)");
    d.define(
        STAGING_RETENTION_MS,
        Type.LONG,
        FlowBounds.DEFAULT_STAGING_RETENTION.toMillis(),
        ConfigDef.Range.atLeast(1),
        Importance.LOW,
        "Chunks staged in the target longer ago than this are deleted: no barrier completed them (chunks"
            + " of a flow or transaction a topic writer invented, or of a publication the source abandoned)."
            + " Must exceed barrier.max.wait.ms, after which a real barrier still waiting fails closed"
            + " (MISSING_CHUNK). Default 6 hours.",
        GROUP_FLOWS,
        ++o,
        Width.SHORT,
        "Staging retention (ms)");
    d.define(
        STAGING_FLOW_MAX_BYTES,
        Type.LONG,
        FlowBounds.DEFAULT_MAX_STAGED_BYTES_PER_FLOW,
        ConfigDef.Range.atLeast(1),
        Importance.LOW,
        "The most bytes of chunks one flow (source id and dataset id) may have staged for barriers that"
            + " have not completed. A transaction whose chunks would pass it is set aside (WARN, once;"
            + " JMX TransactionsSetAside): its chunks are not staged and every other transaction and"
            + " flow goes on, but the offsets of the partitions that carried them stay before its"
            + " first chunk set aside. If its barrier arrives the task fails with STAGING_FLOW_FULL"
            + " naming it: raise this bound and restart, and it applies whole. After"
            + " staging.retention.ms without its barrier it is dropped as junk and the offsets go on."
            + " Default 1 GiB.",
        GROUP_FLOWS,
        ++o,
        Width.SHORT,
        "Max staged bytes per flow");
  }
}
