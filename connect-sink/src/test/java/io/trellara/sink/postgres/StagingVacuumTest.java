package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.v1.RelationId;
import io.trellara.sink.buffer.Input;
import io.trellara.sink.engine.SinkEngine;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.session.ConnectionFactory;
import io.trellara.sink.postgres.settings.ApplyOptions;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The staging table is vacuumed by the task whose applies delete its chunks, between two target
 * transactions, once enough were deleted; a role that may not vacuum it applies exactly as before.
 * Judged on a real target: {@code pg_class.reltuples} is -1 until the table's first vacuum (or
 * analyze), and autovacuum is off for the table here, so only the sink's own vacuum can change it.
 */
class StagingVacuumTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  private static final RelationId ACCOUNTS = rel("app", "accounts");

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec(
        "CREATE TABLE app.accounts (id int PRIMARY KEY, balance text NOT NULL)",
        "ALTER TABLE trellara_sink.staged_chunks SET (autovacuum_enabled = false)");
  }

  /** {@code n} partitioned transactions, each one row in one lane chunk, its manifest, marker. */
  private static List<Input> transactions(Feed feed, int n) {
    List<Input> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Tx t =
          tx(0x1000 + 0x100L * i)
              .insert(
                  ACCOUNTS,
                  key("id", "integer", Integer.toString(i)),
                  val("balance", "text", "row " + i));
      out.addAll(feed.inputs(Barriers.partitioned(t.build(), 1, 10, e -> 0).all()));
    }
    return out;
  }

  /** Stages every lane chunk before its barrier applies, as with lanes on another task. */
  private static SinkEngine staging(TransactionApplier a) {
    return new SinkEngine(a, null, 1000, 64 << 20, 0).holdLanes(Duration.ZERO, 0);
  }

  private static String reltuples() {
    return pg.one(
        "SELECT reltuples::bigint FROM pg_class WHERE oid = 'trellara_sink.staged_chunks'::regclass");
  }

  private static TransactionApplier applier(ConnectionFactory connections) {
    TransactionApplier a =
        new TransactionApplier(
            connections,
            RelationMapper.builder().allow(List.of("app.*")).build(),
            ApplyOptions.builder("s").build());
    a.stagingVacuum().after(10);
    return a;
  }

  @Test
  void theTaskWhoseAppliesDeleteStagedChunksVacuumsTheTableBetweenTransactions() {
    assertThat(reltuples()).as("never vacuumed").isEqualTo("-1");
    try (TransactionApplier a = applier(pg.connections());
        SinkEngine p = staging(a)) {
      Feed.oneByOne(p, transactions(new Feed(), 30));
      assertThat(a.metrics().chunksStaged()).isEqualTo(30);
      assertThat(a.metrics().stagingVacuums()).as("at most one a second").isPositive();
    }
    assertThat(pg.count("app.accounts")).isEqualTo(30);
    assertThat(pg.count("trellara_sink.staged_chunks")).isZero();
    assertThat(reltuples()).as("vacuumed by the sink").isEqualTo("0");
  }

  @Test
  void aRoleThatMayNotVacuumTheTableAppliesAsBeforeAndStopsTrying() {
    pg.exec(
        "DROP ROLE IF EXISTS vacuum_other",
        "CREATE ROLE vacuum_other",
        "GRANT USAGE, CREATE ON SCHEMA app, trellara_sink TO vacuum_other",
        // every privilege the sink uses, not ALL: on PostgreSQL 17 ALL includes MAINTAIN (vacuum)
        "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA app, trellara_sink"
            + " TO vacuum_other");
    ConnectionFactory other =
        () -> {
          Connection c = pg.connections().open();
          try (Statement s = c.createStatement()) {
            s.execute("SET ROLE vacuum_other");
          }
          return c;
        };
    try (TransactionApplier a = applier(other);
        SinkEngine p = staging(a)) {
      Feed.oneByOne(p, transactions(new Feed(), 30));
      assertThat(a.metrics().stagingVacuums()).isZero();
    } finally {
      pg.exec("REASSIGN OWNED BY vacuum_other TO postgres", "DROP OWNED BY vacuum_other");
      pg.exec("DROP ROLE vacuum_other");
    }
    assertThat(pg.count("app.accounts")).isEqualTo(30);
    assertThat(pg.count("trellara_sink.staged_chunks")).isZero();
    assertThat(reltuples()).as("not vacuumed").isEqualTo("-1");
  }
}
