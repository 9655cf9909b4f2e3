package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.trellara.protocol.Snapshots;
import io.trellara.protocol.v1.RelationId;
import io.trellara.sink.buffer.Input;
import io.trellara.sink.engine.SinkEngine;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import io.trellara.sink.postgres.settings.SnapshotApplyMode;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A source that lost its offsets snapshots again, and the snapshot meets a target its earlier one
 * loaded: the rows are replaced inside the snapshot's transaction. Each table's rows are long
 * enough to go through COPY, so a COPY of one table is still open on the session when the next
 * table is prepared: the sink once issued its "is this table empty" query on that connection inside
 * the open COPY, and pgjdbc waited for its own lock forever (task RUNNING, ACCESS EXCLUSIVE held by
 * the TRUNCATE, every reader waiting). And readers: while the second snapshot loads, a reader at
 * READ COMMITTED is never blocked and sees the first snapshot's rows, and a REPEATABLE READ reader
 * that began before it never sees a table empty.
 */
class SnapshotReplaceTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  private static final List<String> TABLES = List.of("a", "b", "c");
  private static final int ROWS = 2_000;

  /**
   * Wide rows: a table's rows are more than the writer sets aside in memory, so its run is written
   * (its COPY left open for the next run) before the next table is prepared.
   */
  private static final String WIDE = "x".repeat(3_000);

  @BeforeEach
  void reset() {
    pg.reset();
    for (String t : TABLES) {
      pg.exec("CREATE TABLE app." + t + " (id int PRIMARY KEY, note text)");
    }
  }

  private static TransactionApplier applier(SnapshotApplyMode mode) {
    return new TransactionApplier(
        pg.connections(),
        RelationMapper.builder().allow(List.of("app.*")).build(),
        ApplyOptions.builder("s1").snapshotApply(mode).build());
  }

  /** A snapshot at {@code lsn} whose rows say {@code generation}, in chunks of 500 changes. */
  private static Barriers snapshot(long lsn, String generation) {
    Tx t = Tx.tx("pg-test", lsn, Snapshots.TRANSACTION_ID);
    for (String table : TABLES) {
      RelationId r = rel("app", table);
      for (int i = 1; i <= ROWS; i++) {
        t.insert(
            r,
            key("id", "integer", Integer.toString(i)),
            val("note", "text", generation + i + WIDE));
      }
    }
    return Barriers.strictChunked(t.build(), 500);
  }

  @Test
  void aSecondSnapshotReplacesTheFirstWithoutHangingInsideAnOpenCopy() {
    for (SnapshotApplyMode mode : SnapshotApplyMode.values()) {
      reset();
      Feed feed = new Feed();
      List<Input> first = feed.inputs(snapshot(0x500, "old").all());
      List<Input> second = feed.inputs(snapshot(0x900, "new").all());
      try (TransactionApplier a = applier(mode);
          SinkEngine p = new SinkEngine(a, null, 1000, 64 << 20, 0)) {
        assertTimeoutPreemptively(
            Duration.ofSeconds(60),
            () -> {
              Feed.oneByOne(p, first);
              Feed.oneByOne(p, second); // the same sessions: tables already described
            },
            "snapshot.apply=" + mode + ": the re-snapshot must not wait on its own open COPY");
      }
      for (String t : TABLES) {
        assertThat(pg.count("app." + t)).as(mode + " " + t).isEqualTo(ROWS);
        assertThat(pg.one("SELECT count(*) FROM app." + t + " WHERE note LIKE 'new%'"))
            .isEqualTo(Integer.toString(ROWS));
      }
    }
  }

  @Test
  void readersAreNeverBlockedAndNeverSeeAnEmptyTableWhileRowsAreReplaced() {
    // a replace that locks readers out would wait for the REPEATABLE READ reader's own lock
    assertTimeoutPreemptively(Duration.ofSeconds(60), this::replaceUnderReaders);
  }

  private void replaceUnderReaders() throws Exception {
    Feed feed = new Feed();
    List<Input> first = feed.inputs(snapshot(0x500, "old").all());
    List<Input> second = feed.inputs(snapshot(0x900, "new").all());
    try (TransactionApplier a = applier(SnapshotApplyMode.ATOMIC);
        SinkEngine p = new SinkEngine(a, null, 1000, 64 << 20, 0);
        Connection committed = pg.connections().open();
        Connection repeatable = pg.connections().open()) {
      Feed.oneByOne(p, first);
      try (Statement s = committed.createStatement()) {
        s.execute("SET lock_timeout = '1s'"); // a reader blocked longer fails the test
      }
      repeatable.setAutoCommit(false);
      try (Statement s = repeatable.createStatement()) {
        s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
        s.execute("SET lock_timeout = '1s'");
      }
      List<String> seen = new ArrayList<>();
      assertThat(sums(repeatable)).isEqualTo(3L * ROWS); // its snapshot: before the second load
      Feed.oneByOne(
          p,
          second,
          delivered -> {
            try {
              seen.add(sums(committed) + "/" + sums(repeatable));
            } catch (SQLException e) {
              throw new AssertionError("a reader failed while rows were replaced: " + e, e);
            }
          });
      long total = 3L * ROWS;
      assertThat(seen)
          .as("READ COMMITTED / REPEATABLE READ row counts after each record")
          .allSatisfy(x -> assertThat(x).endsWith("/" + total))
          .allSatisfy(x -> assertThat(x).startsWith(total + "/"));
      assertThat(newRows(committed)).isEqualTo(total);
      repeatable.rollback();
    }
  }

  private static long sums(Connection c) throws SQLException {
    long n = 0;
    for (String t : TABLES) {
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT count(*) FROM app." + t)) {
        rs.next();
        long rows = rs.getLong(1);
        if (rows == 0) {
          throw new SQLException("table app." + t + " seen empty");
        }
        n += rows;
      }
    }
    return n;
  }

  private static long newRows(Connection c) throws SQLException {
    long n = 0;
    for (String t : TABLES) {
      try (Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery("SELECT count(*) FROM app." + t + " WHERE note LIKE 'new%'")) {
        rs.next();
        n += rs.getLong(1);
      }
    }
    return n;
  }
}
