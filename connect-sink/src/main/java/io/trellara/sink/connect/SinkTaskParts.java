package io.trellara.sink.connect;

import io.trellara.sink.buffer.SinkBuffer;
import io.trellara.sink.connect.metrics.SinkTaskMetrics;
import io.trellara.sink.engine.SinkEngine;
import io.trellara.sink.postgres.TransactionApplier;
import io.trellara.sink.postgres.checkpoint.CheckpointStore;
import io.trellara.sink.postgres.session.JdbcConnectionFactory;
import io.trellara.sink.postgres.session.StagingWakeups;
import io.trellara.sink.postgres.settings.ApplyOptions;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * A sink task's parts, put together from its configuration: the rules checked, the target's
 * checkpoint schema made sure of, the PostgreSQL applier (the port), the driver and the engine, and
 * the task's JMX bean. The task keeps only what it needs afterwards.
 */
record SinkTaskParts(
    TransactionApplier applier,
    SinkEngine engine,
    SinkTaskMetrics metrics,
    RecordAuthenticator authenticator) {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(SinkTaskParts.class);

  static SinkTaskParts start(Map<String, String> props, SinkEngine.Consumer consumer) {
    List<SinkConfigRules.Problem> problems = SinkConfigRules.check(props);
    if (!problems.isEmpty()) {
      throw new ConnectException(SinkConfigRules.describe(problems));
    }
    TrellaraSinkConfig config = new TrellaraSinkConfig(props);
    String sinkName = props.getOrDefault("name", "trellara-sink");
    String taskId = props.getOrDefault(TrellaraSinkTask.TASK_ID, "0");
    JdbcConnectionFactory connections =
        new JdbcConnectionFactory(
            config.getString(TrellaraSinkConfig.URL),
            config.getString(TrellaraSinkConfig.USER),
            TrellaraSinkConfig.secret(config.getPassword(TrellaraSinkConfig.PASSWORD)),
            config.driverProperties());
    prepareCheckpoints(new CheckpointStore(connections));
    TransactionApplier applier =
        new TransactionApplier(connections, config.relationMapper(), config.applyOptions(sinkName))
            .ownedBy(sinkName + " task " + taskId);
    SinkTaskMetrics metrics = new SinkTaskMetrics(sinkName, taskId, applier.metrics());
    SinkEngine engine =
        new SinkEngine(applier, metrics)
            .maxBarrierWait(
                Duration.ofMillis(config.getLong(TrellaraSinkConfig.BARRIER_MAX_WAIT_MS)))
            .maxStagedPerLane(
                config.getLong(TrellaraSinkConfig.STAGING_LANE_MAX_BYTES),
                Duration.ofMillis(SinkBuffer.DEFAULT_STAGING_CHECK_MILLIS))
            .holdLanes(
                Duration.ofMillis(SinkBuffer.DEFAULT_HOLD_MILLIS),
                config.getLong(TrellaraSinkConfig.LANES_HOLD_MAX_BYTES))
            .maxStreamIdle(applier.options().stallTimeout())
            .stagingRetention(applier.options().flowBounds().stagingRetention())
            .retryPolicy(applier.options().retryPolicy())
            .wakeOn(new StagingWakeups(connections, sinkName, applier.metrics().stagingWakeups))
            .attach(sinkName, consumer)
            .fenceWait(applier.options().maxRetryDuration());
    metrics
        .engine(engine)
        .stages(applier.stages())
        .stallBound(applier.options().stallTimeout())
        .start();
    ApplyOptions o = applier.options();
    LOG.info(
        "Sink task {} started: allowlist {}, ddl.apply={}, schema evolution {}, {} transaction(s)"
            + " per target commit, synchronous_commit {}, retries for up to {} s, stall bound {} s",
        sinkName,
        config.getList(TrellaraSinkConfig.ALLOWLIST),
        o.ddlPolicy(),
        o.schemaEvolution(),
        o.groupMaxTransactions(),
        o.synchronousCommitOff() ? "off" : "on",
        o.maxRetryDuration().toSeconds(),
        o.stallTimeout().toSeconds());
    RecordAuthenticator authenticator = RecordAuthenticator.of(config, metrics::authenticatedWith);
    if (authenticator.on()) {
      metrics.authenticatedWith("none");
    }
    return new SinkTaskParts(applier, engine, metrics, authenticator);
  }

  /**
   * The sink's own tables in the target, created when missing; a target of another version refused.
   */
  private static void prepareCheckpoints(CheckpointStore checkpoints) {
    try {
      checkpoints.createSchema();
      checkpoints.requireCompatibleVersions();
    } catch (IllegalStateException e) {
      throw new ConnectException(e.getMessage(), e);
    } catch (SQLException e) {
      throw new ConnectException(
          "Cannot create the sink's checkpoint schema trellara_sink on the target: "
              + e.getMessage()
              + " (SQLSTATE "
              + e.getSQLState()
              + "). Grant CREATE on the database or create it as an administrator.",
          e);
    }
  }
}
