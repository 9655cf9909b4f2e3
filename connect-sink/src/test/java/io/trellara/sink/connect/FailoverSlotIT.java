package io.trellara.sink.connect;

import static io.trellara.sink.connect.Pipelines.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.PostgresServer;
import io.trellara.testplatform.TcpProxy;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TestServers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Failover slots (issue 31, PostgreSQL 17): a real physical standby of the source, made from a base
 * backup taken with pg_backup_start(), a file copy and pg_backup_stop() (the embedded binaries have
 * no pg_basebackup), streaming through a physical slot with sync_replication_slots and
 * hot_standby_feedback on; the primary lists that slot in synchronized_standby_slots. Money moves
 * between accounts through source connector, Kafka and sink connector (both deployed over REST)
 * while the slot is synchronised to the standby; the primary is stopped mid-stream, the standby
 * promoted, and the writer carries on on it. The source (database.hostname lists both,
 * slot.failover=true) must follow by itself, and the target must equal the promoted primary: every
 * transfer exactly once, none lost.
 */
class FailoverSlotIT {
  static final String STANDBY_SLOT = "standby1";
  static final int ACCOUNTS = 50;

  /**
   * {@code host_list}: database.hostname lists the primary and the standby; {@code moved_host}: one
   * address (a proxy standing for a DNS name) that the operator moves to the standby after the
   * promotion.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"host_list", "moved_host"})
  void thePromotedStandbyContinuesFromItsSynchronisedSlotWithNothingLostOrTwice(String addressing)
      throws Exception {
    assumeTrue(
        "embedded".equals(TestServers.current().name()),
        "the standby is built from the primary's data directory: embedded platform only");
    PostgresServer primary = PostgresServer.builder().name("fo-primary").start();
    Path standbyData = Files.createTempDirectory("trellara-pg-fo-standby-");
    PostgresServer standby = null;
    TcpProxy movedHost = null;
    try (TestScope scope = STACK.newScope("failover_" + addressing)) {
      primary.execute(
          "postgres", "SELECT pg_create_physical_replication_slot('" + STANDBY_SLOT + "', true)");
      baseBackup(primary, standbyData);
      standby = PostgresServer.builder().name("fo-standby").dataDirectory(standbyData).start();
      awaitStreaming(primary);

      PostgresDatabase src = primary.createDatabase("fo_src");
      PostgresDatabase dst = scope.targetDatabase();
      schema(
          src,
          dst,
          "CREATE TABLE account (id int PRIMARY KEY, balance bigint NOT NULL)",
          "CREATE TABLE transfer (id uuid PRIMARY KEY, src int NOT NULL, dst int NOT NULL,"
              + " amount int NOT NULL)");

      boolean hostList = addressing.equals("host_list");
      if (!hostList) {
        movedHost = TcpProxy.to("fo-host", primary.host(), primary.port());
      }
      String hostname =
          hostList
              ? primary.host() + ":" + primary.port() + "," + standby.host() + ":" + standby.port()
              : movedHost.host() + ":" + movedHost.port();
      String topic = scope.createTopic("strict", 1);
      Map<String, String> source =
          ConnectorConfigs.source(
              scope,
              src,
              topic,
              "public.account,public.transfer",
              Map.of(
                  "database.hostname",
                  hostname,
                  "slot.failover",
                  "true",
                  "replication.reconnect.max.duration.ms",
                  "180000"));

      // checkable on the primary: without synchronized_standby_slots validate() names it
      ConnectRestClient.ValidationResult refused =
          STACK.rest().validate(ConnectorConfigs.SOURCE_CLASS, withName(scope, source));
      assertThat(refused.errors().get("slot.failover"))
          .as("validate() without synchronized_standby_slots: %s", refused.messages())
          .anySatisfy(m -> assertThat(m).contains("synchronized_standby_slots is empty"));
      primary.execute(
          "postgres",
          "ALTER SYSTEM SET synchronized_standby_slots = '" + STANDBY_SLOT + "'",
          "SELECT pg_reload_conf()");
      await()
          .atMost(WAIT)
          .until(
              () ->
                  STACK
                      .rest()
                      .validate(ConnectorConfigs.SOURCE_CLASS, withName(scope, source))
                      .errors()
                      .getOrDefault("slot.failover", List.of())
                      .isEmpty());

      src.execute("INSERT INTO account SELECT g, 1000 FROM generate_series(1, " + ACCOUNTS + ") g");
      String sourceName = scope.createConnector("source", source);
      STACK.rest().awaitRunning(sourceName);
      assertThat(
              src.queryString(
                  "SELECT failover::text FROM pg_replication_slots WHERE slot_name = '"
                      + scope.slotName()
                      + "'"))
          .as("the slot the snapshot created is a failover slot")
          .isEqualTo("true");
      deploySink(scope, "sink", dst, topic, Map.of());

      String writerUrl =
          "jdbc:postgresql://"
              + primary.host()
              + ":"
              + primary.port()
              + ","
              + standby.host()
              + ":"
              + standby.port()
              + "/"
              + src.name()
              + "?targetServerType=primary&hostRecheckSeconds=1&connectTimeout=5";
      try (Writer writer = new Writer(writerUrl, primary.user())) {
        await().atMost(WAIT).until(() -> writer.committed.get() >= 200);
        PostgresServer sb = standby;
        await("slot synchronised to the standby")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(200))
            .until(() -> syncedSlot(sb, src.name(), scope.slotName()));
        await().atMost(WAIT).until(() -> rowCount(dst, "transfer") >= 100);

        int beforeStop = writer.committed.get();
        primary.stop(); // mid-stream: the writer and the source lose their connections
        long stopped = System.nanoTime();
        try (Connection c = standby.connect("postgres");
            Statement st = c.createStatement()) {
          st.execute("SELECT pg_promote(true, 60)");
        }
        long promoted = System.nanoTime();
        if (movedHost != null) {
          movedHost.moveTo(standby.host(), standby.port()); // the operator moves the name
        }
        await().atMost(WAIT).until(() -> writer.committed.get() >= beforeStop + 200);
        writer.stop();
        PostgresServer newPrimary = standby;
        String newPrimaryDb = src.name();
        await("target equals the promoted primary")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(250))
            .until(
                () ->
                    Objects.equals(rows(newPrimary, newPrimaryDb, "account"), rows(dst, "account"))
                        && Objects.equals(
                            rows(newPrimary, newPrimaryDb, "transfer"), rows(dst, "transfer")));

        long transfers = count(newPrimary, newPrimaryDb, "SELECT count(*) FROM transfer");
        long total = count(newPrimary, newPrimaryDb, "SELECT sum(balance) FROM account");
        assertThat(total).isEqualTo(ACCOUNTS * 1000L);
        // every acknowledged commit survived the promotion; one whose answer was lost may or not
        assertThat(transfers)
            .isBetween(
                (long) writer.committed.get(),
                (long) writer.committed.get() + writer.unknown.get());
        // one applied transaction per source transaction: the snapshot, the accounts' insert is
        // in it, and one per transfer; a transaction applied twice would be counted twice
        assertThat(appliedTransactions(dst)).isEqualTo(1 + transfers);
        assertThat(STACK.rest().status(sourceName).tasks().get(0).state()).isEqualTo("RUNNING");
        System.out.printf(
            "FailoverSlotIT %s: %d transfers (%d before the primary stopped, %d with an unknown outcome"
                + " at the stop), primary stop to promotion %d ms, target equal to the promoted"
                + " primary %d ms after the promotion%n",
            addressing,
            transfers,
            beforeStop,
            writer.unknown.get(),
            (promoted - stopped) / 1_000_000,
            (System.nanoTime() - promoted) / 1_000_000);
      }
    } finally {
      if (movedHost != null) {
        movedHost.close();
      }
      if (standby != null) {
        standby.close();
      }
      primary.close();
      deleteTree(standbyData);
    }
  }

  /**
   * A base backup of {@code primary} into {@code target}: pg_backup_start, a copy of the data
   * directory without its WAL, slots and postmaster files (the standby streams the WAL from the
   * physical slot, which retained it), pg_backup_stop's label as backup_label, standby.signal and
   * the standby's settings.
   */
  private static void baseBackup(PostgresServer primary, Path target) throws Exception {
    try (Connection c = primary.connect("postgres");
        Statement st = c.createStatement()) {
      st.execute("SELECT pg_backup_start('trellara-failover-it', true)");
      copyDataDirectory(primary.dataDirectory(), target);
      try (ResultSet rs =
          st.executeQuery("SELECT labelfile, spcmapfile FROM pg_backup_stop(false)")) {
        rs.next();
        Files.writeString(target.resolve("backup_label"), rs.getString(1), StandardCharsets.UTF_8);
        String spcmap = rs.getString(2);
        if (spcmap != null && !spcmap.isEmpty()) {
          Files.writeString(target.resolve("tablespace_map"), spcmap, StandardCharsets.UTF_8);
        }
      }
    }
    Files.writeString(target.resolve("standby.signal"), "");
    // the last setting in postgresql.auto.conf wins; zonky's -c options hold no value with spaces
    Files.writeString(
        target.resolve("postgresql.auto.conf"),
        "\nprimary_conninfo = 'host="
            + primary.host()
            + " port="
            + primary.port()
            + " user="
            + primary.user()
            + " dbname=postgres application_name="
            + STANDBY_SLOT
            + "'\nprimary_slot_name = '"
            + STANDBY_SLOT
            + "'\nsync_replication_slots = on\nhot_standby_feedback = on\nhot_standby = on\n"
            + "synchronized_standby_slots = ''\n",
        StandardCharsets.UTF_8,
        java.nio.file.StandardOpenOption.APPEND);
  }

  private static final Set<String> NOT_COPIED =
      Set.of("postmaster.pid", "postmaster.opts", "epg-lock", "backup_label", "standby.signal");
  private static final Set<String> EMPTIED =
      Set.of(
          "pg_wal",
          "pg_replslot",
          "pg_stat_tmp",
          "pg_dynshmem",
          "pg_notify",
          "pg_serial",
          "pg_snapshots",
          "pg_subtrans");

  private static void copyDataDirectory(Path from, Path to) throws IOException {
    List<Path> paths;
    try (Stream<Path> walk = Files.walk(from)) {
      paths = walk.toList();
    }
    for (Path p : paths) {
      Path rel = from.relativize(p);
      if (rel.toString().isEmpty()) {
        continue;
      }
      String top = rel.getName(0).toString();
      if (rel.getNameCount() == 1 && NOT_COPIED.contains(top)) {
        continue;
      }
      if (EMPTIED.contains(top) && rel.getNameCount() > 1) {
        if (top.equals("pg_wal") && rel.getNameCount() == 2 && rel.endsWith("archive_status")) {
          Files.createDirectories(to.resolve(rel));
        }
        continue;
      }
      Path dest = to.resolve(rel);
      try {
        if (Files.isDirectory(p)) {
          Files.createDirectories(dest);
        } else {
          Files.createDirectories(dest.getParent());
          Files.copy(p, dest);
        }
      } catch (NoSuchFileException gone) {
        // a temporary file removed while copying: the backup's WAL replay covers it
      }
    }
  }

  private static void awaitStreaming(PostgresServer primary) {
    await("standby streaming from the primary")
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              try (Connection c = primary.connect("postgres");
                  Statement st = c.createStatement();
                  ResultSet rs =
                      st.executeQuery(
                          "SELECT count(*) FROM pg_stat_replication WHERE application_name = '"
                              + STANDBY_SLOT
                              + "' AND state = 'streaming'")) {
                return rs.next() && rs.getLong(1) == 1;
              }
            });
  }

  /** The standby holds the slot synchronised and persisted (not the temporary first copy). */
  private static boolean syncedSlot(PostgresServer standby, String database, String slot) {
    try (Connection c = standby.connect(database);
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT synced AND NOT temporary AND confirmed_flush_lsn IS NOT NULL"
                    + " FROM pg_replication_slots WHERE slot_name = '"
                    + slot
                    + "'")) {
      return rs.next() && rs.getBoolean(1);
    } catch (SQLException e) {
      return false;
    }
  }

  private static Map<String, String> withName(TestScope scope, Map<String, String> config) {
    Map<String, String> c = new HashMap<>(config);
    c.put("name", scope.connectorName("source"));
    return c;
  }

  private static long rowCount(PostgresDatabase db, String table) {
    return db.queryLong("SELECT count(*) FROM " + table);
  }

  private static List<List<Object>> rows(PostgresDatabase db, String table) {
    return Pipelines.rows(db, table, "1");
  }

  private static List<List<Object>> rows(PostgresServer server, String database, String table)
      throws SQLException {
    List<List<Object>> rows = new ArrayList<>();
    try (Connection c = server.connect(database);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT t::text FROM " + table + " t ORDER BY 1")) {
      while (rs.next()) {
        rows.add(List.of(rs.getString(1)));
      }
    }
    return rows;
  }

  private static long count(PostgresServer server, String database, String sql)
      throws SQLException {
    try (Connection c = server.connect(database);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      System.err.println("could not delete " + root + ": " + e);
    }
  }

  /**
   * Moves money between accounts, one transfer per transaction (two updates and a ledger row), on
   * whichever server is the primary; a lost connection is retried once a primary answers again (a
   * commit whose answer was lost counts as unknown: the promoted primary's rows decide).
   */
  static final class Writer implements AutoCloseable {
    final AtomicInteger committed = new AtomicInteger();
    final AtomicInteger unknown = new AtomicInteger();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final String url;
    private final String user;
    private final Thread thread;

    Writer(String url, String user) {
      this.url = url;
      this.user = user;
      this.thread = new Thread(this::run, "failover-writer");
      thread.start();
    }

    private Connection connect() throws SQLException {
      Connection c = DriverManager.getConnection(url, user, "unused");
      c.setAutoCommit(false);
      return c;
    }

    private void run() {
      Random random = new Random(31);
      Connection c = null;
      try {
        while (running.get()) {
          if (c == null) {
            AtomicReference<Connection> made = new AtomicReference<>();
            await("a primary to write on")
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(100))
                .until(
                    () -> {
                      try {
                        made.set(connect());
                        return true;
                      } catch (SQLException e) {
                        return !running.get();
                      }
                    });
            c = made.get();
            if (c == null) {
              return;
            }
          }
          int from = 1 + random.nextInt(ACCOUNTS);
          int to = 1 + random.nextInt(ACCOUNTS);
          int amount = 1 + random.nextInt(20);
          boolean committing = false;
          try (Statement st = c.createStatement()) {
            st.executeUpdate(
                "UPDATE account SET balance = balance - " + amount + " WHERE id = " + from);
            st.executeUpdate(
                "UPDATE account SET balance = balance + " + amount + " WHERE id = " + to);
            st.executeUpdate(
                "INSERT INTO transfer VALUES (gen_random_uuid(), "
                    + from
                    + ", "
                    + to
                    + ", "
                    + amount
                    + ")");
            committing = true;
            c.commit();
            committed.incrementAndGet();
          } catch (SQLException e) {
            if (committing) {
              unknown.incrementAndGet();
            }
            try {
              c.close();
            } catch (SQLException ignored) {
              // the connection is gone
            }
            c = null;
          }
        }
      } catch (Throwable t) {
        failure.set(t);
      } finally {
        if (c != null) {
          try {
            c.close();
          } catch (SQLException ignored) {
            // closing
          }
        }
      }
    }

    void stop() throws InterruptedException {
      running.set(false);
      thread.join(60_000);
      assertThat(failure.get()).as("the writer's failure").isNull();
    }

    @Override
    public void close() throws InterruptedException {
      stop();
    }
  }
}
