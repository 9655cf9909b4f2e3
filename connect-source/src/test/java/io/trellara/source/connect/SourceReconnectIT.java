package io.trellara.source.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.protocol.Lsn;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TestServers;
import io.trellara.testplatform.TrellaraStack;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The source task regains its replication connection by itself: the source PostgreSQL restarted
 * while transactions commit, and the walsender terminated by an administrator. The task never fails
 * and every committed transaction reaches the topic (re-sent ones twice: duplicates are allowed).
 *
 * <p>The stack's source PostgreSQL is shared by every IT of this JVM, so these tests restart a
 * server of their own (the worker and broker are the shared ones). What PostgreSQL committed is
 * read from a witness slot (pgoutput, the same publication) created before the workload: the commit
 * LSN of every 'C' message.
 */
@EitherPlatform
class SourceReconnectIT {
  static final TrellaraStack STACK = TrellaraStack.get();
  static final Duration WAIT = Duration.ofSeconds(120);
  static TestServers.Postgres pg;

  @BeforeAll
  static void startOwnServer() {
    pg = TestServers.current().postgres("reconnect").start();
  }

  @AfterAll
  static void stopOwnServer() {
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void sourceServerRestartWhileCommittingLosesNoTransactionAndTheTaskKeepsRunning()
      throws Exception {
    try (TestScope scope = STACK.newScope("pgrestart")) {
      Capture c = deploy(scope);
      commit(c.db, 1, 20); // before
      try (Writer writer = new Writer(c.db, 1_000)) {
        await().atMost(WAIT).until(() -> writer.committed.get() >= 20);
        long stopping = System.nanoTime();
        pg.restart(); // during: the writer keeps committing until the server goes, and once it is
        // back
        long up = System.nanoTime();
        String upLsn = c.db.queryString("SELECT pg_current_wal_lsn()::text");
        int atRestart = writer.committed.get();
        await().atMost(WAIT).until(() -> writer.committed.get() >= atRestart + 20);
        long firstNew = awaitRecordCommittedAfter(c, Lsn.parse(upLsn));
        System.out.printf(
            "SourceReconnectIT restart: server down and up in %d ms; first record of a"
                + " transaction committed after the restart on the topic %d ms after the server was"
                + " up (%d ms after the stop began)%n",
            (up - stopping) / 1_000_000,
            (firstNew - up) / 1_000_000,
            (firstNew - stopping) / 1_000_000);
      }
      commit(c.db, 5_000, 20); // after
      assertEveryCommittedTransactionIsOnTheTopic(c);
    }
  }

  @Test
  void terminatedWalsenderIsReplacedAndLosesNoTransaction() throws Exception {
    try (TestScope scope = STACK.newScope("walsender")) {
      Capture c = deploy(scope);
      commit(c.db, 1, 20);
      try (Writer writer = new Writer(c.db, 1_000)) {
        await().atMost(WAIT).until(() -> writer.committed.get() >= 20);
        long terminated = System.nanoTime();
        assertThat(
                c.db.queryString(
                    "SELECT pg_terminate_backend(active_pid)::text FROM"
                        + " pg_replication_slots WHERE slot_name = '"
                        + scope.slotName()
                        + "'"))
            .isEqualTo("true");
        String lsn = c.db.queryString("SELECT pg_current_wal_lsn()::text");
        long firstNew = awaitRecordCommittedAfter(c, Lsn.parse(lsn));
        System.out.printf(
            "SourceReconnectIT walsender terminated: first record of a transaction committed"
                + " afterwards on the topic %d ms later%n",
            (firstNew - terminated) / 1_000_000);
        int now = writer.committed.get();
        await().atMost(WAIT).until(() -> writer.committed.get() >= now + 20);
      }
      commit(c.db, 5_000, 20);
      assertEveryCommittedTransactionIsOnTheTopic(c);
    }
  }

  private record Capture(
      TestScope scope,
      PostgresDatabase db,
      String topic,
      String connector,
      String witness,
      ObjectName bean) {}

  private static Capture deploy(TestScope scope) throws Exception {
    PostgresDatabase db = pg.createDatabase(scope.prefix());
    db.execute("CREATE TABLE t (id int PRIMARY KEY, v text)");
    String topic = scope.createTopic("strict", 1);
    String name =
        scope.createConnector(
            "source",
            ConnectorConfigs.source(
                scope, db, topic, "public.t", Map.of("replication.status.interval.ms", "200")));
    STACK.rest().awaitRunning(name);
    String witness = scope.slotName("witness");
    db.execute("SELECT pg_create_logical_replication_slot('" + witness + "', 'pgoutput')");
    return new Capture(
        scope,
        db,
        topic,
        name,
        witness,
        new ObjectName("io.trellara:type=source-task,connector=" + name + ",task=0"));
  }

  /** {@code count} transactions of one row each, ids from {@code first}. */
  private static void commit(PostgresDatabase db, int first, int count) {
    for (int i = first; i < first + count; i++) {
      db.execute("INSERT INTO t VALUES (" + i + ", 'main')");
    }
  }

  /**
   * Waits (the task never failing) for a record of a transaction committed after {@code lsn};
   * returns when.
   */
  private static long awaitRecordCommittedAfter(Capture c, Lsn lsn) {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(50))
        .failFast("the source task failed", () -> STACK.rest().status(c.connector).isFailed())
        .until(() -> topicCommitLsns(c.topic).stream().anyMatch(l -> l.compareTo(lsn) > 0));
    return System.nanoTime();
  }

  private static void assertEveryCommittedTransactionIsOnTheTopic(Capture c) throws Exception {
    Set<Lsn> committed = witnessCommitLsns(c);
    assertThat(committed).hasSizeGreaterThanOrEqualTo(60);
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .failFast("the source task failed", () -> STACK.rest().status(c.connector).isFailed())
        .until(() -> topicCommitLsns(c.topic).containsAll(committed));
    List<Lsn> onTopic = topicCommitLsnList(c.topic);
    assertThat(new HashSet<>(onTopic)).containsAll(committed);
    assertThat(STACK.rest().status(c.connector).isRunning(1)).isTrue();
    long reconnects =
        (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(c.bean, "Reconnects");
    assertThat(reconnects).isGreaterThanOrEqualTo(1);
    assertThat(
            (Long)
                ManagementFactory.getPlatformMBeanServer()
                    .getAttribute(c.bean, "DisconnectedMillis"))
        .isZero();
    assertThat(
            (String)
                ManagementFactory.getPlatformMBeanServer()
                    .getAttribute(c.bean, "LastReplicationError"))
        .isNotNull();
    System.out.printf(
        "SourceReconnectIT %s: %d transactions committed, %d records on the topic (%d duplicates),"
            + " Reconnects=%d%n",
        c.scope.prefix(),
        committed.size(),
        onTopic.size(),
        onTopic.size() - new HashSet<>(onTopic).size(),
        reconnects);
  }

  private static Set<Lsn> topicCommitLsns(String topic) {
    return new HashSet<>(topicCommitLsnList(topic));
  }

  private static List<Lsn> topicCommitLsnList(String topic) {
    return STACK.broker().readAll(topic).stream()
        .map(r -> Lsn.parse(TrellaraCodec.decodeEnvelope(r.value()).getCommitLsn()))
        .toList();
  }

  /**
   * Commit LSNs of the transactions PostgreSQL decoded for the publication since the witness slot
   * was made.
   */
  private static Set<Lsn> witnessCommitLsns(Capture c) throws SQLException {
    Set<Lsn> lsns = new HashSet<>();
    try (Connection connection = c.db.connect();
        Statement st = connection.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT data FROM pg_logical_slot_peek_binary_changes('"
                    + c.witness
                    + "', NULL, NULL, 'proto_version', '1', 'publication_names', '"
                    + c.scope.publicationName()
                    + "')")) {
      while (rs.next()) {
        ByteBuffer data = ByteBuffer.wrap(rs.getBytes(1));
        if (data.get(0) == 'C') { // Commit: Byte1('C'), Int8 flags, Int64 commit LSN, ...
          lsns.add(Lsn.of(data.getLong(2)));
        }
      }
    }
    return lsns;
  }

  /**
   * Commits one-row transactions (each lasting about 10 ms) until closed; while the server is away
   * it waits for it to accept connections again. A transaction whose commit was cut off may or may
   * not have committed: the witness slot knows.
   */
  private static final class Writer implements AutoCloseable {
    final AtomicInteger committed = new AtomicInteger();
    private final PostgresDatabase db;
    private final AtomicInteger nextId;
    private final Thread thread;
    private volatile boolean stop;

    Writer(PostgresDatabase db, int firstId) {
      this.db = db;
      this.nextId = new AtomicInteger(firstId);
      this.thread = new Thread(this::run, "reconnect-it-writer");
      thread.start();
    }

    private void run() {
      while (!stop) {
        try (Connection connection = db.connect();
            Statement st = connection.createStatement()) {
          while (!stop) {
            st.execute(
                "INSERT INTO t SELECT "
                    + nextId.getAndIncrement()
                    + ", 'writer'"
                    + " FROM pg_sleep(0.01)");
            committed.incrementAndGet();
          }
        } catch (SQLException | RuntimeException e) {
          await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() -> stop || accepts());
        }
      }
    }

    private boolean accepts() {
      try (Connection ignored = db.connect()) {
        return true;
      } catch (SQLException | RuntimeException e) {
        return false;
      }
    }

    @Override
    public void close() throws InterruptedException {
      stop = true;
      thread.join(WAIT.toMillis());
    }
  }
}
