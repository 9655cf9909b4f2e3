package io.trellara.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectWorkerProcess;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.ConnectorStatus;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.KafkaRecord;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TrellaraStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Partitioned scale mode, the hard case of the commit barrier: a Connect worker in its own JVM
 * (plugin.path = the unpacked component archive, service_load) runs the source (6 lanes, chunks of
 * 200 changes, ownership by tenant) and the sink ({@code tasks.max=3} over the strict topic and the
 * 6 lanes). Two large transactions spread over every lane, and the worker is SIGKILLed while the
 * sink has staged part of the first one:
 *
 * <ul>
 *   <li><b>A</b> is wholly in Kafka and behind the source's committed offset when the kill comes
 *       (the sink was paused while the source published it), so nothing publishes it again: the
 *       sink alone must resume its partly staged lanes from its progress in the target;
 *   <li><b>B</b>, committed right after A, is still being captured or published by the source at
 *       the kill (the printed figures say how far it got), so the source publishes it again, whole,
 *       after the restart, and the sink must take it once although its lanes may carry a partial
 *       copy before the whole one.
 * </ul>
 *
 * After a restart (a new JVM, same group and REST port) both must be applied exactly once and
 * completely, in order with the small transactions before, between and after them, and a reader
 * polling the target during the whole run must never see a part of either.
 *
 * <p>The failsafe class path holds no protocol or connector classes: Kafka records are inspected by
 * key and headers only (plain UTF-8), the target through SQL.
 */
@EitherPlatform
class BarrierWorkerKillIT {

  /** Rows of each large transaction; raise it if the kill ever lands after the barrier applied. */
  private static final int ROWS = Integer.getInteger("trellara.barrierkill.rows", 100_000);

  /**
   * Share of A's events the sink has staged when the worker is killed (0: at its first staged
   * chunk): the kill comes at the first poll that sees at least that much. Staging advances in
   * fetch-sized batches (with Kafka's default 1 MB a partition, about 48 of a lane's ~84 chunks at
   * once), so a share near 1 may find A wholly staged, which the test refuses: it must kill with
   * A's lanes partly staged.
   */
  private static final double KILL_AT =
      Double.parseDouble(System.getProperty("trellara.barrierkill.at", "0.5"));

  private static final int CHUNK = 200;
  private static final int A_BASE = 1000;
  private static final int B_BASE = 2000;
  private static final int BIG_TENANTS = 600;
  private static final int SMALL_TENANTS = 12;
  private static final int SMALL_IDS = 5;
  private static final long BANK_START = 1_000_000_000L;

  /**
   * sum(balance) of the table once the seed transaction is applied: every later transaction
   * preserves it.
   */
  private static final long TOTAL = BANK_START + (long) SMALL_TENANTS * SMALL_IDS * 1000;

  /**
   * Events of a large transaction: its inserts and the update of the bank row that pays for them.
   */
  private static final long BIG_EVENTS = ROWS + 1L;

  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final String TABLE =
      "CREATE TABLE account (tenant int, id int, balance bigint NOT NULL,"
          + " PRIMARY KEY (tenant, id))";

  @Test
  void largeTransactionsPartlyStagedWhenTheWorkerDiesAreAppliedOnceAndCompletelyAfterTheRestart()
      throws Exception {
    long testStarted = System.nanoTime();
    TrellaraStack stack = TrellaraStack.get();
    Path pluginPath = PluginWorker.unpackArchive("it-plugin-path-barrier-kill");
    try (TestScope scope = stack.newScope("barrierKill")) {
      PostgresDatabase source = scope.sourceDatabase();
      PostgresDatabase target = scope.targetDatabase();
      source.execute(TABLE);
      target.execute(TABLE);
      String strict = scope.createTopic("strict", 1);
      String lanes = scope.createTopic("lanes", 6);
      ConnectWorkerProcess worker =
          PluginWorker.killableWorker(stack, scope.prefix() + "-barrier-kill", pluginPath, "512m");
      String sourceName = scope.connectorName("source");
      String sinkName = scope.connectorName("sink");
      List<String> xids = new ArrayList<>(); // every committed non-empty source transaction
      AtomicReference<String> xidA = new AtomicReference<>();
      AtomicReference<String> xidB = new AtomicReference<>();
      Reader reader = new Reader(target, xidA, xidB);
      Thread readerThread = new Thread(reader, "barrier-kill-reader");
      readerThread.setDaemon(true);
      Random random = new Random(42);
      try {
        worker.start();
        ConnectRestClient rest = worker.rest();
        Map<String, String> src =
            new HashMap<>(
                ConnectorConfigs.source(scope, source, strict, "public.account", Map.of()));
        // snapshot.mode=never: the test follows every source transaction by its xid; under the
        // default,
        // a worker lost before Connect's first offset flush after the snapshot snapshots again,
        // folding
        // the outage's transactions into the new snapshot (docs/snapshot.md)
        src.put("snapshot.mode", "never");
        src.putAll(
            Map.of(
                "dataset.mode",
                "partitioned_scale_mode",
                "topic.partitioned",
                lanes,
                "dataset.partitioned.partition_count",
                "6",
                "dataset.partitioned.max_changes_per_chunk",
                Integer.toString(CHUNK),
                "dataset.partitioned.ownership_keys",
                "public.account:tenant"));
        rest.createConnector(sourceName, src);
        Map<String, String> sink =
            new HashMap<>(ConnectorConfigs.sink(target, strict + "," + lanes, Map.of()));
        sink.remove(
            "consumer.override.max.partition.fetch.bytes"); // Kafka's default: ~1 MB a partition
        sink.put("tasks.max", "3");
        sink.put(
            "lanes.hold.max.bytes", "0"); // every lane chunk staged: the kill lands mid-staging
        // the dead worker's consumers leave the sink's group after 6 s, not Kafka's default 45 s
        sink.put("consumer.override.session.timeout.ms", "6000");
        sink.put("consumer.override.heartbeat.interval.ms", "1000");
        rest.createConnector(sinkName, sink);
        rest.awaitRunning(sourceName);
        rest.awaitRunning(sinkName, 3, WAIT);
        String slotActive =
            "SELECT count(*) FROM pg_replication_slots WHERE active AND slot_name = '"
                + scope.slotName()
                + "'";
        await("slot " + scope.slotName() + " active")
            .atMost(WAIT)
            .until(() -> source.queryLong(slotActive) == 1);
        readerThread.start();

        // before: the seed (the bank row and 60 small accounts) and 10 transfers, all applied
        xids.add(
            SourceTransactions.commit(
                source,
                "INSERT INTO account VALUES (0, 0, " + BANK_START + ")",
                "INSERT INTO account SELECT t, i, 1000 FROM generate_series(1, "
                    + SMALL_TENANTS
                    + ") t,"
                    + " generate_series(1, "
                    + SMALL_IDS
                    + ") i"));
        for (int i = 0; i < 10; i++) {
          xids.add(transfer(source, random, 0));
        }
        await("the transactions before the large ones applied")
            .atMost(WAIT)
            .until(() -> applied(target) == xids.size());

        // A, published whole while the sink is paused, and the source's offset committed past it
        rest.pause(sinkName);
        await("sink tasks PAUSED")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(100))
            .until(
                () ->
                    rest.status(sinkName).tasks().stream()
                        .allMatch(t -> "PAUSED".equals(t.state())));
        long aStarted = System.nanoTime();
        String a = large(source, A_BASE);
        double aCommit = (System.nanoTime() - aStarted) / 1e9;
        xidA.set(a);
        xids.add(a);
        await("source offset committed past A")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(200))
            .until(() -> a.equals(sourceOffsetTransaction(rest, sourceName)));
        double aPublished = (System.nanoTime() - aStarted) / 1e9;

        // B right behind it, then 10 transfers (some into A's and B's new rows); the sink resumes
        long bStarted = System.nanoTime();
        String b = large(source, B_BASE);
        xidB.set(b);
        xids.add(b);
        for (int i = 0; i < 10; i++) {
          xids.add(transfer(source, random, i % 3 == 0 ? 1 + i % 2 : 0));
        }
        rest.resume(sinkName);
        long resumedAt = System.nanoTime();

        // kill the worker once part of A is staged, before it is applied
        long firstStagedAt = 0;
        long killPolls = 0;
        try (Connection c = target.connect();
            PreparedStatement ps =
                c.prepareStatement(
                    "SELECT (SELECT coalesce(sum(event_count), 0) FROM trellara_sink.staged_chunks"
                        + " WHERE transaction_id = ?),"
                        + " (SELECT count(*) FROM trellara_sink.applied_transactions"
                        + " WHERE transaction_id = ?)")) {
          ps.setString(1, a);
          ps.setString(2, a);
          long deadline = System.nanoTime() + WAIT.toNanos();
          while (true) {
            killPolls++;
            long staged;
            long appliedA;
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              staged = rs.getLong(1);
              appliedA = rs.getLong(2);
            }
            assertThat(appliedA)
                .as(
                    "A was applied before the kill: raise -Dtrellara.barrierkill.rows"
                        + " or lower -Dtrellara.barrierkill.at")
                .isZero();
            if (staged > 0 && firstStagedAt == 0) {
              firstStagedAt = System.nanoTime();
            }
            if (staged > 0 && staged >= KILL_AT * BIG_EVENTS) {
              worker.kill();
              break;
            }
            if (System.nanoTime() > deadline) {
              throw new AssertionError(
                  "A not staged within " + WAIT + "; worker log:\n" + worker.logTail());
            }
            LockSupport.parkNanos(2_000_000L);
          }
        }
        long killedAt = System.nanoTime();
        long lanesAtKill = endOffsets(stack, lanes);

        // what the dead worker left behind: the process is gone, so this is the state at the kill
        Staged stagedA = staged(target, a);
        Staged stagedB = staged(target, b);
        long appliedAtKill = applied(target);
        Published kafkaA = published(stack, strict, lanes, a);
        Published kafkaB = published(stack, strict, lanes, b);
        assertThat(appliedContains(target, a)).as("A applied at the kill").isFalse();
        assertThat(appliedContains(target, b)).as("B applied at the kill").isFalse();
        assertThat(target.queryLong("SELECT count(*) FROM account WHERE tenant >= " + A_BASE))
            .as("rows of A or B visible at the kill")
            .isZero();
        assertThat(stagedA.events)
            .as("events of A staged at the kill (its lanes partly staged)")
            .isPositive()
            .isLessThan(BIG_EVENTS);
        assertThat(kafkaA)
            .as("A wholly in Kafka at the kill")
            .isEqualTo(new Published(kafkaA.chunks, BIG_EVENTS, 1, 1));
        // the sink's Kafka offsets never pass what is durable in the target: a lane's committed
        // offset is
        // at most its progress there, and the strict partition's progress is at most A's manifest
        Map<String, Long> progress = new HashMap<>();
        for (List<Object> row :
            target.query(
                "SELECT topic || '-' || kafka_partition, next_offset"
                    + " FROM trellara_sink.progress WHERE sink_name = '"
                    + sinkName
                    + "'")) {
          progress.put((String) row.get(0), ((Number) row.get(1)).longValue());
        }
        Map<TopicPartition, Long> kafkaOffsets =
            stack.broker().consumerGroupOffsets("connect-" + sinkName);
        kafkaOffsets.forEach(
            (tp, offset) ->
                assertThat(offset)
                    .as(
                        "committed Kafka offset of "
                            + tp
                            + " against the target's progress "
                            + progress)
                    .isLessThanOrEqualTo(progress.getOrDefault(tp.toString(), -1L)));
        long manifestA = manifestOffset(stack, strict, a);
        assertThat(progress.get(strict + "-0"))
            .as("strict partition's progress at the kill")
            .isLessThanOrEqualTo(manifestA);

        // the source commits on while no worker runs
        for (int i = 0; i < 5; i++) {
          xids.add(transfer(source, random, 1 + i % 2));
        }

        long restartAt = System.nanoTime();
        worker.start(); // a new JVM, same group id and REST port: connectors and offsets come back
        long workerUpAt = System.nanoTime();
        rest.awaitRunning(sourceName, 1, WAIT);
        rest.awaitRunning(sinkName, 3, WAIT);
        long runningAt = System.nanoTime();
        long lanesGrowAt = 0;
        long aAllStagedAt = 0;
        long aAppliedAt = 0;
        long bAllStagedAt = 0;
        long bAppliedAt = 0;
        double aApplySeconds = 0;
        double bApplySeconds = 0;
        long bStagedMax = stagedB.events;
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (aAppliedAt == 0 || bAppliedAt == 0) {
          long now = System.nanoTime();
          if (lanesGrowAt == 0 && endOffsets(stack, lanes) > lanesAtKill) {
            lanesGrowAt = now;
          }
          if (aAppliedAt == 0 && appliedContains(target, a)) {
            aAppliedAt = now;
            aApplySeconds = applySeconds(target, a);
          }
          if (bAppliedAt == 0 && appliedContains(target, b)) {
            bAppliedAt = now;
            bApplySeconds = applySeconds(target, b);
          }
          if (bAppliedAt == 0) {
            bStagedMax = Math.max(bStagedMax, staged(target, b).events);
          }
          if (aAllStagedAt == 0 && (aAppliedAt != 0 || staged(target, a).events >= BIG_EVENTS)) {
            aAllStagedAt = now;
          }
          if (bAllStagedAt == 0 && (bAppliedAt != 0 || staged(target, b).events >= BIG_EVENTS)) {
            bAllStagedAt = now;
          }
          if (now > deadline) {
            throw new AssertionError(
                "A and B not applied within "
                    + WAIT
                    + " of the restart (A "
                    + staged(target, a)
                    + ", B "
                    + staged(target, b)
                    + "); worker log:\n"
                    + worker.logTail());
          }
          LockSupport.parkNanos(50_000_000L);
        }
        for (int i = 0; i < 5; i++) {
          xids.add(transfer(source, random, i % 3));
        }
        String fingerprint =
            "SELECT count(*)::text || ':' || coalesce(md5(string_agg(t::text, ','"
                + " ORDER BY tenant, id)), '') FROM account t";
        String expected = source.queryString(fingerprint);
        await("target equals source")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(250))
            .until(() -> expected.equals(target.queryString(fingerprint)));
        long equalAt = System.nanoTime();
        long stagedLeftAtEqual =
            target.queryLong("SELECT count(*) FROM trellara_sink.staged_chunks");

        // exactly once: every source transaction recorded once and nothing else; the rows equal the
        // source
        List<String> appliedIds =
            target.query("SELECT transaction_id FROM trellara_sink.applied_transactions").stream()
                .map(r -> (String) r.get(0))
                .toList();
        assertThat(new HashSet<>(xids)).hasSize(xids.size());
        assertThat(appliedIds)
            .as("applied transactions")
            .hasSize(xids.size())
            .containsExactlyInAnyOrderElementsOf(xids);
        for (String big : List.of(a, b)) {
          assertThat(
                  target.queryLong(
                      "SELECT event_count FROM trellara_sink.applied_transactions"
                          + " WHERE transaction_id = '"
                          + big
                          + "'"))
              .as("events applied of " + big)
              .isEqualTo(BIG_EVENTS);
        }
        assertThat(
                target.queryLong(
                    "SELECT count(*) FROM account WHERE tenant >= "
                        + A_BASE
                        + " AND tenant < "
                        + B_BASE))
            .as("rows of A")
            .isEqualTo(ROWS);
        assertThat(target.queryLong("SELECT count(*) FROM account WHERE tenant >= " + B_BASE))
            .as("rows of B")
            .isEqualTo(ROWS);
        assertThat(target.queryLong("SELECT sum(balance) FROM account")).isEqualTo(TOTAL);
        assertThat(
                target.query(
                    "SELECT t::text FROM account t WHERE tenant < "
                        + A_BASE
                        + " ORDER BY tenant, id"))
            .isEqualTo(
                source.query(
                    "SELECT t::text FROM account t"
                        + " WHERE tenant < "
                        + A_BASE
                        + " ORDER BY tenant, id"));
        await("no staged chunk left")
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(250))
            .until(() -> target.queryLong("SELECT count(*) FROM trellara_sink.staged_chunks") == 0);
        ConnectorStatus sourceStatus = rest.status(sourceName);
        ConnectorStatus sinkStatus = rest.status(sinkName);
        assertThat(sourceStatus.isRunning(1)).as("source " + sourceStatus).isTrue();
        assertThat(sinkStatus.isRunning(3)).as("sink " + sinkStatus).isTrue();
        assertThat(sinkStatus.tasks()).hasSize(3);
        // the sink recovered A by itself: nothing published it again
        Published finalA = published(stack, strict, lanes, a);
        Published finalB = published(stack, strict, lanes, b);
        assertThat(finalA)
            .as("A's records after the restart (not published again)")
            .isEqualTo(kafkaA);

        reader.stop();
        readerThread.join(10_000);
        assertThat(reader.violation.get()).as("the reader saw a partial transaction").isNull();
        assertThat(reader.sawNone.get()).as("reader saw the target before A and B").isTrue();
        assertThat(reader.sawBoth.get()).as("reader saw the target with A and B").isTrue();

        System.out.printf(
            Locale.ROOT,
            "BarrierWorkerKillIT: %d source transactions, two of %,d rows"
                + " (%,d events) over 6 lanes in chunks of %d, sink tasks.max=3; A committed in"
                + " %.2f s, published whole with the sink paused and the source offset past it after"
                + " %.2f s; sink resumed -> first chunk of A staged %.2f s -> kill %.2f s later (%d"
                + " polls, at %.0f%% of A staged)%n",
            xids.size(),
            ROWS,
            BIG_EVENTS,
            CHUNK,
            aCommit,
            aPublished,
            (firstStagedAt - resumedAt) / 1e9,
            (killedAt - firstStagedAt) / 1e9,
            killPolls,
            KILL_AT * 100);
        System.out.printf(
            Locale.ROOT,
            "BarrierWorkerKillIT: at the kill (%.2f s after B's commit), %d"
                + " transactions applied; A: %s, in Kafka %s; B: %s, in Kafka %s; target progress %s,"
                + " committed Kafka offsets %s, A's manifest at strict offset %d%n",
            (killedAt - bStarted) / 1e9,
            appliedAtKill,
            stagedA,
            kafkaA,
            stagedB,
            kafkaB,
            new TreeMap<>(progress),
            new TreeMap<>(
                kafkaOffsets.entrySet().stream()
                    .collect(Collectors.toMap(e -> e.getKey().toString(), Map.Entry::getValue))),
            manifestA);
        System.out.printf(
            Locale.ROOT,
            "BarrierWorkerKillIT: kill -> restart %.2f s -> new worker REST up"
                + " %.2f s -> both connectors RUNNING %.2f s; from RUNNING: source publishing again"
                + " %s, A wholly staged %s, A applied %s (its target transaction took about %.2f s),"
                + " B wholly staged %s (at most %,d events staged), B applied %s (about %.2f s); kill"
                + " -> both applied %.2f s -> target equals source %.2f s later%n",
            (restartAt - killedAt) / 1e9,
            (workerUpAt - restartAt) / 1e9,
            (runningAt - workerUpAt) / 1e9,
            since(lanesGrowAt, runningAt),
            since(aAllStagedAt, runningAt),
            since(aAppliedAt, runningAt),
            aApplySeconds,
            since(bAllStagedAt, runningAt),
            bStagedMax,
            since(bAppliedAt, runningAt),
            bApplySeconds,
            (Math.max(aAppliedAt, bAppliedAt) - killedAt) / 1e9,
            (equalAt - Math.max(aAppliedAt, bAppliedAt)) / 1e9);
        System.out.printf(
            Locale.ROOT,
            "BarrierWorkerKillIT: finally in Kafka A %s, B %s (B published"
                + " again: %s); %d staged chunks left when the target equalled the source; reader"
                + " %d polls, saw neither, A only %s, both, never a part; test %.1f s%n",
            finalA,
            finalB,
            finalB.chunkEvents > BIG_EVENTS ? "yes" : "no",
            stagedLeftAtEqual,
            reader.polls.get(),
            reader.sawAOnly.get(),
            (System.nanoTime() - testStarted) / 1e9);
      } catch (Throwable t) {
        System.out.println("BarrierWorkerKillIT worker log tail:\n" + worker.logTail());
        if (worker.isRunning()) {
          for (String name : List.of(sourceName, sinkName)) {
            try {
              ConnectorStatus status = worker.rest().status(name);
              System.out.println("BarrierWorkerKillIT " + status + "\n" + status.firstTrace());
            } catch (RuntimeException e) {
              System.out.println("BarrierWorkerKillIT: no status of " + name + ": " + e);
            }
          }
        }
        throw t;
      } finally {
        reader.stop();
        readerThread.join(10_000);
        try {
          if (worker.isRunning()) {
            ConnectRestClient rest = worker.rest();
            for (String name : List.of(sinkName, sourceName)) {
              if (rest.connectors().contains(name)) {
                rest.deleteAndAwait(name);
              }
            }
          }
        } finally {
          keepLog(worker, pluginPath.getParent().resolve("barrier-kill-worker.log"));
          worker.close();
        }
      }
    }
  }

  /**
   * Keeps the worker's log (both JVMs) in target/ for a look after the run; close() deletes the
   * original.
   */
  private static void keepLog(ConnectWorkerProcess worker, Path copy) {
    try {
      Files.copy(worker.logFile(), copy, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      System.out.println("BarrierWorkerKillIT: could not keep the worker log: " + e);
    }
  }

  /**
   * {@link #ROWS} new accounts in tenants {@code base .. base + 599} (so every lane gets many
   * chunks), paid for by the bank row: sum(balance) holds only when the transaction is applied
   * whole.
   */
  private static String large(PostgresDatabase db, int base) throws SQLException {
    return SourceTransactions.commit(
        db,
        "INSERT INTO account SELECT "
            + base
            + " + g % "
            + BIG_TENANTS
            + ", g, 1 + g % 5"
            + " FROM generate_series(1, "
            + ROWS
            + ") g",
        "UPDATE account SET balance = balance - (SELECT sum(balance) FROM account WHERE tenant >= "
            + base
            + " AND tenant < "
            + (base + BIG_TENANTS)
            + ") WHERE tenant = 0 AND id = 0");
  }

  /**
   * A transfer that preserves sum(balance): between two small accounts ({@code into} 0), or from
   * the bank row to an account that A (1) or B (2) created, which only exists once that transaction
   * is applied.
   */
  private static String transfer(PostgresDatabase db, Random random, int into) throws SQLException {
    int amount = 1 + random.nextInt(50);
    String from;
    String to;
    if (into == 0) {
      from =
          "tenant = "
              + (1 + random.nextInt(SMALL_TENANTS))
              + " AND id = "
              + (1 + random.nextInt(SMALL_IDS));
      to =
          "tenant = "
              + (1 + random.nextInt(SMALL_TENANTS))
              + " AND id = "
              + (1 + random.nextInt(SMALL_IDS));
      if (from.equals(to)) {
        to = "tenant = 0 AND id = 0";
      }
    } else {
      int g = 1 + random.nextInt(ROWS);
      from = "tenant = 0 AND id = 0";
      to = "tenant = " + ((into == 1 ? A_BASE : B_BASE) + g % BIG_TENANTS) + " AND id = " + g;
    }
    return SourceTransactions.commit(
        db,
        "UPDATE account SET balance = balance - " + amount + " WHERE " + from,
        "UPDATE account SET balance = balance + " + amount + " WHERE " + to);
  }

  /**
   * The transaction id of the source's committed offset (the last transaction Kafka wholly holds),
   * or null.
   */
  private static String sourceOffsetTransaction(ConnectRestClient rest, String connector) {
    for (JsonNode o : rest.offsets(connector).path("offsets")) {
      JsonNode id = o.path("offset").path("transaction_id");
      if (!id.isMissingNode()) {
        return id.asText();
      }
    }
    return null;
  }

  private static String since(long at, long from) {
    return at == 0 ? "-" : String.format(Locale.ROOT, "%.2f s", (at - from) / 1e9);
  }

  private static long endOffsets(TrellaraStack stack, String topic) {
    return stack.broker().endOffsets(topic).values().stream().mapToLong(Long::longValue).sum();
  }

  /**
   * Seconds since the target transaction that applied {@code xid} began (its dedup record's now()).
   */
  private static double applySeconds(PostgresDatabase target, String xid) {
    return Double.parseDouble(
        target.queryString(
            "SELECT extract(epoch FROM clock_timestamp() - applied_at)"
                + " FROM trellara_sink.applied_transactions WHERE transaction_id = '"
                + xid
                + "'"));
  }

  private static long applied(PostgresDatabase target) {
    return target.queryLong("SELECT count(*) FROM trellara_sink.applied_transactions");
  }

  private static boolean appliedContains(PostgresDatabase target, String xid) {
    return target.queryLong(
            "SELECT count(*) FROM trellara_sink.applied_transactions WHERE transaction_id = '"
                + xid
                + "'")
        > 0;
  }

  /** A transaction's chunks in {@code trellara_sink.staged_chunks}. */
  private record Staged(long chunks, long events, long lanes) {
    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "%d chunks / %,d of %,d events staged over %d of 6 lanes",
          chunks,
          events,
          BIG_EVENTS,
          lanes);
    }
  }

  private static Staged staged(PostgresDatabase target, String xid) {
    List<Object> row =
        target
            .query(
                "SELECT count(*), coalesce(sum(event_count), 0), count(DISTINCT partition_id)"
                    + " FROM trellara_sink.staged_chunks WHERE transaction_id = '"
                    + xid
                    + "'")
            .get(0);
    return new Staged(
        ((Number) row.get(0)).longValue(),
        ((Number) row.get(1)).longValue(),
        ((Number) row.get(2)).longValue());
  }

  /**
   * Records of one transaction on the topics, by key suffix {@code :xid} and the kind and counts
   * headers.
   */
  private record Published(int chunks, long chunkEvents, int manifests, int markers) {
    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "%d chunk records (%,d events), %d manifest(s), %d marker(s)",
          chunks,
          chunkEvents,
          manifests,
          markers);
    }
  }

  private static Published published(TrellaraStack stack, String strict, String lanes, String xid) {
    String suffix = ":" + xid;
    int chunks = 0;
    long events = 0;
    for (KafkaRecord r : stack.broker().readAll(lanes)) {
      String key = r.keyAsString();
      if (key != null
          && key.endsWith(suffix)
          && "chunk".equals(r.headerAsString("trellara.kind"))) {
        chunks++;
        events += sourceTotal(r.headerAsString("trellara.counts"));
      }
    }
    int manifests = 0;
    int markers = 0;
    for (KafkaRecord r : stack.broker().readAll(strict)) {
      String key = r.keyAsString();
      if (key != null && key.endsWith(suffix)) {
        String kind = r.headerAsString("trellara.kind");
        if ("manifest".equals(kind)) {
          manifests++;
        } else if ("commit_marker".equals(kind)) {
          markers++;
        }
      }
    }
    return new Published(chunks, events, manifests, markers);
  }

  /** Offset of the transaction's manifest on the strict topic. */
  private static long manifestOffset(TrellaraStack stack, String strict, String xid) {
    return stack.broker().readAll(strict).stream()
        .filter(
            r ->
                r.keyAsString() != null
                    && r.keyAsString().endsWith(":" + xid)
                    && "manifest".equals(r.headerAsString("trellara.kind")))
        .mapToLong(KafkaRecord::offset)
        .min()
        .orElseThrow();
  }

  /** {@code dml=N ddl=M source_total=T} -> T. */
  private static long sourceTotal(String counts) {
    if (counts == null) {
      return 0;
    }
    for (String part : counts.split(" ")) {
      if (part.startsWith("source_total=")) {
        return Long.parseLong(part.substring("source_total=".length()));
      }
    }
    return 0;
  }

  /**
   * Polls the target in one statement (one snapshot) during the whole run: once anything is
   * applied, sum(balance) is the seed's total; A's and B's rows are each all there or none, exactly
   * when their dedup records are; B never without A.
   */
  private static final class Reader implements Runnable {
    private final PostgresDatabase target;
    private final AtomicReference<String> xidA;
    private final AtomicReference<String> xidB;
    private final AtomicBoolean running = new AtomicBoolean(true);
    final AtomicReference<String> violation = new AtomicReference<>();
    final AtomicBoolean sawNone = new AtomicBoolean();
    final AtomicBoolean sawAOnly = new AtomicBoolean();
    final AtomicBoolean sawBoth = new AtomicBoolean();
    final AtomicLong polls = new AtomicLong();

    Reader(PostgresDatabase target, AtomicReference<String> xidA, AtomicReference<String> xidB) {
      this.target = target;
      this.xidA = xidA;
      this.xidB = xidB;
    }

    void stop() {
      running.set(false);
    }

    @Override
    public void run() {
      String sql =
          "SELECT count(*), count(*) FILTER (WHERE tenant >= "
              + A_BASE
              + " AND tenant < "
              + B_BASE
              + "), count(*) FILTER (WHERE tenant >= "
              + B_BASE
              + "), coalesce(sum(balance), 0),"
              + " (SELECT count(*) FROM trellara_sink.applied_transactions WHERE transaction_id = ?),"
              + " (SELECT count(*) FROM trellara_sink.applied_transactions WHERE transaction_id = ?)"
              + " FROM account";
      try (Connection c = target.connect();
          PreparedStatement ps = c.prepareStatement(sql)) {
        while (running.get() && violation.get() == null) {
          String a = xidA.get();
          String b = xidB.get();
          ps.setString(1, a == null ? "none" : a);
          ps.setString(2, b == null ? "none" : b);
          long all;
          long rowsA;
          long rowsB;
          long sum;
          long appliedA;
          long appliedB;
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            all = rs.getLong(1);
            rowsA = rs.getLong(2);
            rowsB = rs.getLong(3);
            sum = rs.getLong(4);
            appliedA = rs.getLong(5);
            appliedB = rs.getLong(6);
          } catch (SQLException e) {
            if (e.getMessage().contains("trellara_sink")) {
              LockSupport.parkNanos(20_000_000L); // the sink has not created its schema yet
              continue;
            }
            throw e;
          }
          polls.incrementAndGet();
          String state =
              all
                  + " rows, "
                  + rowsA
                  + " of A (dedup record "
                  + appliedA
                  + "), "
                  + rowsB
                  + " of B (dedup record "
                  + appliedB
                  + "), sum(balance) "
                  + sum;
          if (all > 0 && sum != TOTAL) {
            violation.set("sum(balance) is not " + TOTAL + ": " + state);
          } else if ((rowsA != 0 && rowsA != ROWS) || (rowsB != 0 && rowsB != ROWS)) {
            violation.set("part of a large transaction visible: " + state);
          } else if ((rowsA == ROWS) != (appliedA == 1) || (rowsB == ROWS) != (appliedB == 1)) {
            violation.set("rows and dedup record disagree: " + state);
          } else if (rowsB > 0 && rowsA == 0) {
            violation.set("B visible before A: " + state);
          }
          if (b != null && rowsA == 0) {
            sawNone.set(true);
          } else if (rowsA == ROWS && rowsB == 0) {
            sawAOnly.set(true);
          } else if (rowsA == ROWS && rowsB == ROWS) {
            sawBoth.set(true);
          }
          LockSupport.parkNanos(20_000_000L);
        }
      } catch (SQLException | RuntimeException e) {
        violation.compareAndSet(null, "reader failed: " + e);
      }
    }
  }
}
