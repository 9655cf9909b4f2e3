package io.trellara.sink.connect;

import static org.awaitility.Awaitility.await;

import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TrellaraStack;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Source and sink deployed over REST between two real PostgreSQL servers, and table comparisons.
 */
final class Pipelines {
  static final TrellaraStack STACK = TrellaraStack.get();
  static final Duration WAIT = Duration.ofSeconds(120);

  private Pipelines() {}

  /** Runs the same DDL on source and target (the initial schema is not replicated). */
  static void schema(PostgresDatabase source, PostgresDatabase target, String... ddl) {
    source.execute(ddl);
    target.execute(ddl);
  }

  static String deploySource(
      TestScope scope,
      PostgresDatabase db,
      String topic,
      String tables,
      Map<String, String> extra) {
    return deploySource(scope, "source", db, topic, tables, extra);
  }

  static String deploySource(
      TestScope scope,
      String connector,
      PostgresDatabase db,
      String topic,
      String tables,
      Map<String, String> extra) {
    String name =
        scope.createConnector(connector, ConnectorConfigs.source(scope, db, topic, tables, extra));
    STACK.rest().awaitRunning(name);
    return name;
  }

  static String deploySink(
      TestScope scope,
      String connector,
      PostgresDatabase target,
      String topic,
      Map<String, String> extra) {
    String name = scope.createConnector(connector, ConnectorConfigs.sink(target, topic, extra));
    STACK.rest().awaitRunning(name);
    return name;
  }

  /**
   * A source and a sink in one boundary mode: {@code strict} (one envelope per transaction), {@code
   * strict_chunked} (50 events per chunk) or {@code partitioned} (6 lanes of 50-event chunks, the
   * sink with tasks.max=3 over the lanes and the strict topic).
   */
  static void deployPair(
      TestScope scope,
      String mode,
      PostgresDatabase source,
      PostgresDatabase target,
      String tables,
      Map<String, String> sinkExtra) {
    String strict = scope.createTopic("strict", 1);
    Map<String, String> sourceExtra = new java.util.HashMap<>();
    Map<String, String> sink = new java.util.HashMap<>(sinkExtra);
    String topics = strict;
    switch (mode) {
      case "strict" -> {}
      case "strict_chunked" ->
          sourceExtra.put("dataset.strict_chunking.max_changes_per_chunk", "50");
      case "partitioned" -> {
        String lanes = scope.createTopic("lanes", 6);
        sourceExtra.putAll(
            Map.of(
                "dataset.mode",
                "partitioned_scale_mode",
                "topic.partitioned",
                lanes,
                "dataset.partitioned.partition_count",
                "6",
                "dataset.partitioned.max_changes_per_chunk",
                "50"));
        topics = strict + "," + lanes;
        sink.put("tasks.max", "3");
      }
      default -> throw new IllegalArgumentException(mode);
    }
    deploySource(scope, source, strict, tables, sourceExtra);
    deploySink(scope, "sink", target, topics, sink);
  }

  /** Rows of a table as text, in key order: the comparison every equality check uses. */
  static List<List<Object>> rows(PostgresDatabase db, String table, String orderBy) {
    return db.query("SELECT t::text FROM " + table + " t ORDER BY " + orderBy);
  }

  static long appliedTransactions(PostgresDatabase target) {
    return target.queryLong("SELECT count(*) FROM trellara_sink.applied_transactions");
  }

  static void awaitEqual(
      PostgresDatabase source, PostgresDatabase target, String table, String orderBy) {
    await()
        .atMost(WAIT)
        .until(
            () -> {
              try {
                return Objects.equals(rows(source, table, orderBy), rows(target, table, orderBy));
              } catch (RuntimeException e) {
                return false; // the target table may not have caught up with a replayed DDL yet
              }
            });
  }
}
