package io.trellara.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectWorkerProcess;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.KafkaRecord;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TrellaraStack;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A Connect worker in its own JVM (plugin.path = the unpacked component archive, service_load) is
 * killed with SIGKILL in the middle of a stream of source transactions; a new worker process in the
 * same group picks the connector and its offsets up. Every committed source transaction must be on
 * the topic (duplicates are allowed: the dead worker may have written records whose offsets it
 * never committed), and the slot must never be confirmed past what Kafka holds.
 *
 * <p>Counting is by the record key {@code source/db:commit_lsn:xid} (plain UTF-8), so the protocol
 * classes, which failsafe keeps off this JVM's class path, are not needed.
 */
@EitherPlatform
class WorkerKillIT {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void killedWorkerLosesNoCommittedTransaction() throws Exception {
    long testStarted = System.nanoTime();
    TrellaraStack stack = TrellaraStack.get();
    Path pluginPath = PluginWorker.unpackArchive("it-plugin-path-worker-kill");
    try (TestScope scope = stack.newScope("workerKill")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute(
          "CREATE TABLE t (id int PRIMARY KEY, v int)",
          "CREATE TABLE counter (id int PRIMARY KEY, n int)",
          "INSERT INTO counter VALUES (1, 0)");
      String topic = scope.createTopic("strict", 1);
      ConnectWorkerProcess worker =
          PluginWorker.killableWorker(stack, scope.prefix() + "-kill-group", pluginPath, "384m");
      String name = scope.connectorName("source");
      // number -> committed source xid (32-bit, as pgoutput and the record key carry it)
      ConcurrentSkipListMap<Integer, String> committed = new ConcurrentSkipListMap<>();
      AtomicBoolean writing = new AtomicBoolean(true);
      AtomicReference<Throwable> writerFailure = new AtomicReference<>();
      Thread writer = null;
      try {
        worker.start();
        ConnectRestClient rest = worker.rest();
        // snapshot.mode=never: the test follows every source transaction by its xid; under the
        // default,
        // a worker lost before Connect's first offset flush after the snapshot snapshots again,
        // folding
        // the outage's transactions into the new snapshot (docs/snapshot.md)
        rest.createConnector(
            name,
            ConnectorConfigs.source(
                scope, db, topic, "public.t,public.counter", Map.of("snapshot.mode", "never")));
        rest.awaitRunning(name);
        String slotActive =
            "SELECT count(*) FROM pg_replication_slots WHERE active AND slot_name = '"
                + scope.slotName()
                + "'";
        await("slot " + scope.slotName() + " active")
            .atMost(WAIT)
            .until(() -> db.queryLong(slotActive) == 1);

        writer =
            new Thread(() -> write(db, committed, writing, writerFailure), "worker-kill-writer");
        writer.setDaemon(true);
        writer.start();

        await("first envelopes")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(100))
            .until(() -> stack.broker().readAll(topic).size() >= 30);
        worker.kill();
        long killedAt = System.nanoTime();
        int heldAtKill = stack.broker().readAll(topic).size();
        int committedAtKill = committed.size();
        await("transactions committed while no worker runs")
            .atMost(WAIT)
            .until(() -> committed.size() >= committedAtKill + 20);

        worker
            .start(); // a new JVM, same group id and REST port: the connector and its offsets come
        // back
        long workerUpAt = System.nanoTime();
        await("first envelope after the kill")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(100))
            .until(() -> stack.broker().readAll(topic).size() > heldAtKill);
        double killToResume = (System.nanoTime() - killedAt) / 1e9;
        double upToResume = (System.nanoTime() - workerUpAt) / 1e9;
        int atResume = committed.size();
        await("transactions committed after the resume")
            .atMost(WAIT)
            .until(() -> committed.size() >= atResume + 20);
        writing.set(false);
        writer.join(10_000);
        assertThat(writerFailure.get()).as("writer failure").isNull();
        int total = committed.size();

        Set<String> expected = new HashSet<>(committed.values());
        await("every committed transaction on the topic")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(250))
            .until(() -> keys(stack.broker().readAll(topic)).keySet().containsAll(expected));
        List<KafkaRecord> records = stack.broker().readAll(topic);
        Map<String, String> byXid = keys(records); // xid -> commit LSN
        List<Integer> missing = new ArrayList<>();
        committed.forEach(
            (n, xid) -> {
              if (!byXid.containsKey(xid)) {
                missing.add(n);
              }
            });
        assertThat(missing).as("committed transactions missing from the topic").isEmpty();
        long distinctKeys = records.stream().map(KafkaRecord::keyAsString).distinct().count();
        long duplicates = records.size() - distinctKeys;

        long lastHeld = byXid.values().stream().mapToLong(WorkerKillIT::lsn).max().orElseThrow();
        String slot =
            db.queryString(
                "SELECT confirmed_flush_lsn::text FROM pg_replication_slots"
                    + " WHERE slot_name = '"
                    + scope.slotName()
                    + "'");
        long slotAhead = lsn(slot) - lastHeld;
        System.out.printf(
            java.util.Locale.ROOT,
            "WorkerKillIT: %d transactions committed (%d before the kill),"
                + " %d records on the"
                + " topic (%d at the kill), %d distinct, %d duplicates; kill -> first new envelope"
                + " %.2f s (new worker up -> first envelope %.2f s); slot confirmed_flush %s is %d"
                + " bytes past the last held commit %s; test %.1f s%n",
            total,
            committedAtKill,
            records.size(),
            heldAtKill,
            distinctKeys,
            duplicates,
            killToResume,
            upToResume,
            slot,
            slotAhead,
            format(lastHeld),
            (System.nanoTime() - testStarted) / 1e9);
        // confirmed flush is a commit record's end: at most just past the last commit Kafka holds
        assertThat(slotAhead).as("slot confirmed past what Kafka holds").isLessThan(4096);
      } catch (Throwable t) {
        System.out.println("WorkerKillIT worker log tail:\n" + worker.logTail());
        throw t;
      } finally {
        writing.set(false);
        if (writer != null) {
          writer.join(10_000);
        }
        try {
          if (worker.isRunning()) {
            worker.rest().deleteAndAwait(name);
          }
        } finally {
          worker.close();
        }
      }
    }
  }

  /**
   * Small transactions 1..N: one INSERT plus an UPDATE of the counter row; records each committed
   * xid.
   */
  private static void write(
      PostgresDatabase db,
      Map<Integer, String> committed,
      AtomicBoolean writing,
      AtomicReference<Throwable> failure) {
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      for (int n = 1; writing.get(); n++) {
        s.executeUpdate("INSERT INTO t VALUES (" + n + ", " + n + ")");
        s.executeUpdate("UPDATE counter SET n = " + n + " WHERE id = 1");
        String xid = SourceTransactions.xid(s);
        c.commit();
        committed.put(n, xid);
        java.util.concurrent.locks.LockSupport.parkNanos(
            15_000_000L); // paces the writer; waits for nothing
      }
    } catch (SQLException | RuntimeException e) {
      failure.set(e);
    }
  }

  /** Envelope keys {@code source/db:commit_lsn:xid} by xid; value = commit LSN. */
  private static Map<String, String> keys(List<KafkaRecord> records) {
    Map<String, String> byXid = new TreeMap<>();
    for (KafkaRecord r : records) {
      String key = r.keyAsString();
      if (key == null) {
        continue;
      }
      int last = key.lastIndexOf(':');
      int before = last > 0 ? key.lastIndexOf(':', last - 1) : -1;
      if (before < 0) {
        continue;
      }
      byXid.put(key.substring(last + 1), key.substring(before + 1, last));
    }
    return byXid;
  }

  private static long lsn(String text) {
    int slash = text.indexOf('/');
    return (Long.parseLong(text.substring(0, slash), 16) << 32)
        | Long.parseLong(text.substring(slash + 1), 16);
  }

  private static String format(long lsn) {
    return Long.toHexString(lsn >>> 32).toUpperCase(java.util.Locale.ROOT)
        + "/"
        + Long.toHexString(lsn & 0xFFFFFFFFL).toUpperCase(java.util.Locale.ROOT);
  }

  /**
   * Unzips the component archive into its own directory (the shared plugin worker uses
   * target/it-plugin-path).
   */
}
