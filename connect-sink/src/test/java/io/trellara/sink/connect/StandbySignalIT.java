package io.trellara.sink.connect;

import static io.trellara.sink.connect.Pipelines.STACK;
import static io.trellara.sink.connect.Pipelines.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.PostgresServer;
import io.trellara.testplatform.TestScope;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Issue 30, requirement 5: the source connector reads a hot standby (PostgreSQL 17, made from a
 * low-level backup of a primary of its own), and a signal on {@code signal.kafka.topic}
 * re-snapshots a table whose target copy was damaged: the temporary slot and its exported snapshot
 * are the standby's, the watermark is refused by the standby, and the snapshot is published at the
 * next transaction the primary commits.
 */
@EitherPlatform
class StandbySignalIT {

  @Test
  void aHotStandbySnapshotsATableOnASignalFromTheTopic() throws Exception {
    PostgresServer primary =
        PostgresServer.builder().name("primary").set("hot_standby_feedback", "on").build().start();
    PostgresServer standby = null;
    Path standbyData = null;
    ScheduledExecutorService runningXacts = Executors.newSingleThreadScheduledExecutor();
    try (TestScope scope = STACK.newScope("standby_signal")) {
      PostgresDatabase src = primary.createDatabase("shop");
      PostgresDatabase dst = scope.targetDatabase();
      String ddl = "CREATE TABLE item (id int PRIMARY KEY, name text)";
      dst.execute(ddl);
      src.execute(
          ddl,
          "INSERT INTO item SELECT g, 'i' || g FROM generate_series(1, 1000) g",
          "CREATE PUBLICATION " + scope.publicationName() + " FOR TABLE item");
      primary.execute("postgres", "SELECT pg_create_physical_replication_slot('standby1', true)");
      standby =
          PostgresServer.builder()
              .name("standby")
              .dataDirectory(standbyData = backup(primary))
              .set("hot_standby", "on")
              .set("hot_standby_feedback", "on")
              .build()
              .start();
      PostgresServer replica = standby;
      // a slot on a standby waits for the primary's next running-transactions record
      runningXacts.scheduleWithFixedDelay(
          () -> primary.execute("postgres", "SELECT pg_log_standby_snapshot()"),
          0,
          500,
          TimeUnit.MILLISECONDS);
      await()
          .atMost(WAIT)
          .until(() -> count(replica, src.name(), "SELECT count(*) FROM item") == 1000);
      assertThat(count(replica, src.name(), "SELECT pg_is_in_recovery()::int")).isEqualTo(1);

      String strict = scope.createTopic("strict", 1);
      String signals = scope.createTopic("signals", 1);
      Map<String, String> config =
          new HashMap<>(ConnectorConfigs.source(scope, src, strict, "public.item", Map.of()));
      config.put("database.port", Integer.toString(standby.port()));
      config.put("publication.autocreate.mode", "disabled");
      config.put("ddl.capture.enabled", "false");
      config.put("signal.kafka.topic", signals);
      String source = scope.createConnector("source", config);
      STACK.rest().awaitRunning(source);
      String sink = scope.createConnector("sink", ConnectorConfigs.sink(dst, strict, Map.of()));
      STACK.rest().awaitRunning(sink);
      await().atMost(WAIT).until(() -> dst.queryLong("SELECT count(*) FROM item") == 1000);

      dst.execute("DELETE FROM item WHERE id <= 100", "UPDATE item SET name = 'damaged'");
      try (KafkaProducer<String, String> p = producer()) {
        p.send(
                new ProducerRecord<>(
                    signals,
                    source,
                    "{\"id\": \"standby-1\", \"type\": \"execute-snapshot\","
                        + " \"data\": {\"data-collections\": [\"public.item\"]}}"))
            .get();
      }
      // the standby cannot write the watermark: the primary's next commit publishes the snapshot,
      // once the signal is taken and its temporary slot on the standby has its consistent point
      await()
          .atMost(WAIT)
          .until(
              () ->
                  count(
                          replica,
                          "postgres",
                          "SELECT count(*) FROM pg_replication_slots WHERE slot_name LIKE"
                              + " '%\\_resnap' AND confirmed_flush_lsn IS NOT NULL")
                      > 0);
      src.execute("INSERT INTO item VALUES (1001, 'new')");
      await()
          .atMost(WAIT)
          .until(
              () ->
                  dst.queryLong("SELECT count(*) FROM item") == 1001
                      && dst.queryLong("SELECT count(*) FROM item WHERE name = 'damaged'") == 0);
      assertThat(dst.queryLong("SELECT sum(length(name) + id) FROM item"))
          .isEqualTo(src.queryLong("SELECT sum(length(name) + id) FROM item"));
      assertThat(STACK.rest().status(source).isFailed()).isFalse();
      STACK.rest().delete(source);
    } finally {
      runningXacts.shutdownNow();
      if (standby != null) {
        standby.close();
      }
      primary.close();
      if (standbyData != null) {
        try (Stream<Path> files = Files.walk(standbyData)) {
          files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
      }
    }
  }

  /** A copy of the primary's data directory made in backup mode, set up as its hot standby. */
  private static Path backup(PostgresServer primary) throws Exception {
    Path from = primary.dataDirectory();
    Path to = Files.createTempDirectory("trellara-pg-standby-");
    try (Connection c = primary.connect("postgres");
        Statement st = c.createStatement()) {
      st.execute("SELECT pg_backup_start('standby', true)");
      try (Stream<Path> files = Files.walk(from)) {
        for (Path f : (Iterable<Path>) files::iterator) {
          String name = f.getFileName().toString();
          if (name.equals("postmaster.pid") || name.equals("postmaster.opts")) {
            continue;
          }
          Path target = to.resolve(from.relativize(f).toString());
          try {
            if (Files.isDirectory(f)) {
              Files.createDirectories(target);
              Files.setPosixFilePermissions(target, Files.getPosixFilePermissions(f));
            } else {
              Files.copy(
                  f,
                  target,
                  StandardCopyOption.COPY_ATTRIBUTES,
                  StandardCopyOption.REPLACE_EXISTING);
            }
          } catch (NoSuchFileException gone) {
            // a temporary file removed while copying: not part of the backup
          }
        }
      }
      try (ResultSet rs = st.executeQuery("SELECT labelfile FROM pg_backup_stop(true)")) {
        rs.next();
        Files.writeString(to.resolve("backup_label"), rs.getString(1));
      }
    }
    Files.writeString(to.resolve("standby.signal"), "");
    Files.writeString(
        to.resolve("postgresql.auto.conf"),
        "primary_conninfo = 'host=127.0.0.1 port="
            + primary.port()
            + " user=postgres'\nprimary_slot_name = 'standby1'\n",
        java.nio.file.StandardOpenOption.CREATE,
        java.nio.file.StandardOpenOption.APPEND);
    Files.setPosixFilePermissions(to, Files.getPosixFilePermissions(from));
    return to;
  }

  private static long count(PostgresServer server, String database, String sql) {
    try (Connection c = server.connect(database);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (Exception e) {
      return -1;
    }
  }

  private static KafkaProducer<String, String> producer() {
    Map<String, Object> c = new HashMap<>(STACK.broker().clientConfig());
    c.put("key.serializer", StringSerializer.class);
    c.put("value.serializer", StringSerializer.class);
    return new KafkaProducer<>(c);
  }
}
