package io.trellara.sink.connect;

import static io.trellara.sink.connect.ForgedRecords.Forged.envelope;
import static io.trellara.sink.connect.Pipelines.STACK;
import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.protocol.auth.AuthKey;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.sink.connect.ForgedRecords.Attack;
import io.trellara.sink.connect.ForgedRecords.Forged;
import io.trellara.sink.connect.ForgedRecords.Forgery;
import io.trellara.sink.connect.ForgedRecords.Verdict;
import io.trellara.sink.postgres.Barriers;
import io.trellara.sink.postgres.CraftedRecords;
import io.trellara.sink.postgres.Transfers;
import io.trellara.sink.postgres.Tx;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.ConnectorStatus;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Someone with produce rights on the strict topic, against a sink deployed over REST at its
 * defaults: each attack of {@link #ATTACKS} writes well-formed, correctly checksummed records
 * straight to the topic between a real transaction (the baseline) and a real one after it (the
 * probe), and is judged by SQL on the target: {@code BLOCKED} (refused by name, nothing applied),
 * {@code HARMLESS} (taken, no harm, the probe applied) or {@code FAILED} (the attack's harm query
 * found harm, or the probe was refused: the attack stopped real transactions). Run twice: with
 * authentication off, where the sink's other defences must hold (nothing FAILED), and on, where
 * every attack must be refused as {@code AUTH_FAILED} before anything else looks at it.
 *
 * <p>One sink per attack on a fresh topic of one shared stack, the target reset between attacks. To
 * add an attack, add one entry to {@link #ATTACKS} or {@link ForgedAttacks}: a name, its records
 * ({@link Forged}), the SQL that counts its harm on the target (tables {@code account}, {@code
 * ledger}, {@code event}, allowlisted, and {@code secret}, not), the refusal it must be refused
 * with when authentication is off, and any settings or target setup of its own. Both passes read
 * with the default TrellaraConverter, which hands a record over unread: every forged record of the
 * authentication-on pass must be refused by its tag, before anything parses it.
 */
@EitherPlatform
class ForgedRecordsIT {
  private static final Logger LOG = LoggerFactory.getLogger(ForgedRecordsIT.class);
  static final Duration WAIT = Duration.ofSeconds(60);
  static final int ACCOUNTS = 5;
  static final String REAL = "real-src";
  static final RelationId SECRET = rel("public", "secret");
  static final String SECRET_CHANGED =
      "SELECT count(*) FROM pg_class c WHERE c.relname = 'secret' AND (SELECT count(*) FROM secret"
          + " WHERE note = 'classified') <> 3";
  static final String SECRET_GONE =
      "SELECT CASE WHEN to_regclass('public.secret') IS NULL THEN 1 ELSE 0 END";
  static final String LEDGER_FORGED = "SELECT count(*) FROM ledger WHERE tx >= 900";
  static final String BALANCES_CHANGED = "SELECT count(*) FROM account WHERE balance <> 1000";

  /** The real flow's transaction {@code tx}: one ledger row. */
  static TransactionEnvelope real(long lsn, String tx, int ledgerRow) {
    return Tx.tx(REAL, lsn, tx)
        .insert(
            Transfers.LEDGER,
            key("tx", "integer", Integer.toString(ledgerRow)),
            val("moves", "integer", "0"))
        .build();
  }

  /** The real flow's first transaction: a ledger row and an event row (event's first version). */
  static final TransactionEnvelope BASELINE =
      Tx.tx(REAL, 0x1000, "1")
          .insert(Transfers.LEDGER, key("tx", "integer", "1"), val("moves", "integer", "0"))
          .insert(
              rel("public", "event"),
              key("id", "integer", "2"),
              val("at", "timestamp with time zone", "2026-01-02 00:00:00+00"),
              val("note", "text", "b"),
              val("n", "integer", "1"))
          .build();

  static final TransactionEnvelope PROBE = real(0x100000, "999", 2);

  /** A forged ledger row (tx >= 900) in a transaction of {@code source}. */
  static Tx forgedLedger(String source, long lsn, String tx) {
    return Tx.tx(source, lsn, tx)
        .insert(Transfers.LEDGER, key("tx", "integer", "900"), val("moves", "integer", "1"));
  }

  /**
   * Every attack: the first round's (the sink blocked them before issue 29), then issue 29's
   * ({@link ForgedAttacks}).
   */
  static final List<Attack> ATTACKS = new ArrayList<>(firstRound());

  static {
    ATTACKS.addAll(ForgedAttacks.all());
  }

  private static List<Attack> firstRound() {
    return List.of(
        Attack.of(
                "relation-outside-the-allowlist",
                envelope(
                    Tx.tx("evil", 0x2000, "2")
                        .insert(
                            SECRET,
                            key("id", "integer", "9"),
                            val("account_id", "integer", "1"),
                            val("note", "text", "classified"))
                        .build()),
                SECRET_CHANGED)
            .refusedAs("RELATION_REFUSED", "\"public\".\"secret\""),
        Attack.of(
                "delete-outside-the-allowlist",
                envelope(
                    Tx.tx("evil", 0x2000, "2").delete(SECRET, key("id", "integer", "1")).build()),
                SECRET_CHANGED)
            .refusedAs("RELATION_REFUSED", "\"public\".\"secret\""),
        Attack.of(
                "write-into-trellara_sink",
                envelope(
                    Tx.tx("evil", 0x2000, "2")
                        .delete(
                            rel("trellara_sink", "applied_transactions"),
                            key("source_id", "text", REAL))
                        .build()),
                "SELECT CASE WHEN count(*) = 1 THEN 0 ELSE 1 END"
                    + " FROM trellara_sink.applied_transactions WHERE source_id = '"
                    + REAL
                    + "'")
            .refusedAs("RELATION_REFUSED", "never writes"),
        Attack.of(
                "write-into-pg_catalog",
                envelope(
                    Tx.tx("evil", 0x2000, "2")
                        .delete(rel("pg_catalog", "pg_namespace"), key("nspname", "text", "public"))
                        .build()),
                "SELECT CASE WHEN to_regnamespace('public') IS NULL THEN 1 ELSE 0 END")
            .refusedAs("RELATION_REFUSED", "never writes"),
        Attack.of(
                "sql-in-a-table-name",
                envelope(
                    Tx.tx("evil", 0x2000, "2")
                        .insert(
                            rel("public", "ledger\"; DROP TABLE public.secret; --"),
                            key("tx", "integer", "900"),
                            val("moves", "integer", "1"))
                        .build()),
                SECRET_GONE)
            .refusedAs("RELATION_REFUSED"),
        Attack.of(
                "sql-in-a-column-name",
                envelope(
                    Tx.tx("evil", 0x2000, "2")
                        .insert(
                            Transfers.LEDGER,
                            key("tx", "integer", "900"),
                            val(
                                "moves) VALUES (1, 1); DROP TABLE public.secret; --",
                                "integer",
                                "1"))
                        .build()),
                SECRET_GONE)
            .refusedAs("DATABASE_ERROR", "null value in column \"moves\"", "SQLSTATE 23502"),
        Attack.of(
                "update-keyed-by-a-column-of-its-choosing",
                envelope(
                    CraftedRecords.updateKeyedBy(
                        "evil", 0x2000, "2", Transfers.ACCOUNT, "balance", "bigint", "1000", "0")),
                BALANCES_CHANGED)
            .refusedAs("KEY_COLUMNS_MISMATCH"),
        Attack.of(
            "ddl-text-is-never-run",
            envelope(
                CraftedRecords.ddl(
                    "evil",
                    0x2000,
                    "2",
                    "DROP TABLE public.secret; COPY account TO PROGRAM 'id'",
                    "public.ledger")),
            SECRET_GONE),
        Attack.of(
                "truncate-cascading-outside-the-allowlist",
                envelope(
                    Tx.tx("evil", 0x2000, "2").truncate(true, false, Transfers.ACCOUNT).build()),
                SECRET_CHANGED)
            .refusedAs("RELATION_REFUSED", "TRUNCATE ... CASCADE"),
        Attack.of(
                "replay-below-the-applied-lsn",
                envelope(forgedLedger(REAL, 0x800, "3").build()),
                LEDGER_FORGED)
            .refusedAs("OUT_OF_ORDER"),
        new Attack(
                "strict-record-on-partition-1",
                List.of(envelope(1, forgedLedger("evil", 0x2000, "2").build())),
                LEDGER_FORGED,
                2)
            .refusedAs("BARRIER_SEQUENCE", "a strict topic must have exactly one partition"),
        new Attack("orphan-manifest", orphanManifest(), LEDGER_FORGED));
  }

  /** A chunked transaction whose commit marker never comes. */
  private static List<Forged> orphanManifest() {
    List<Barriers.Published> all =
        Barriers.strictChunked(
                forgedLedger("evil", 0x2000, "2")
                    .insert(
                        Transfers.LEDGER, key("tx", "integer", "901"), val("moves", "integer", "1"))
                    .build(),
                1)
            .all();
    return Forged.barrier(all.subList(0, all.size() - 1));
  }

  @Test
  void withAuthenticationOffTheSinksOtherDefencesHold() {
    Map<String, Verdict> verdicts = runAll(false);
    assertThat(verdicts).doesNotContainValue(Verdict.FAILED).isNotEmpty();
  }

  @Test
  void withAuthenticationOnEveryForgedRecordIsRefusedAsAuthFailed() {
    Map<String, Verdict> verdicts = runAll(true);
    assertThat(verdicts.values()).isNotEmpty().containsOnly(Verdict.BLOCKED);
  }

  private Map<String, Verdict> runAll(boolean authentication) {
    Map<String, Verdict> verdicts = new LinkedHashMap<>();
    try (TestScope scope = STACK.newScope(authentication ? "forged_on" : "forged_off");
        KafkaProducer<byte[], byte[]> producer = producer()) {
      PostgresDatabase dst = scope.targetDatabase();
      String sink = null;
      int n = 0;
      String only = System.getProperty("forged.only", "");
      for (Attack attack : ATTACKS) {
        if (!only.isEmpty() && !only.equals(attack.name())) {
          continue;
        }
        if (sink != null) {
          STACK.rest().deleteAndAwait(sink);
        }
        reset(dst);
        if (!attack.setup().isEmpty()) {
          dst.execute(attack.setup().toArray(String[]::new));
        }
        String topic = scope.createTopic("a" + n, attack.strictPartitions());
        sink = scope.createConnector("sink" + n, sinkConfig(dst, topic, authentication, attack));
        STACK.rest().awaitRunning(sink);
        Forgery forgery = Forgery.values()[n % Forgery.values().length];
        n++;
        Verdict v = attack(producer, dst, sink, topic, attack, authentication ? forgery : null);
        LOG.info("attack {} (authentication {}): {}", attack.name(), authentication, v);
        verdicts.put(attack.name(), v);
      }
      LOG.info("verdicts, authentication {}: {}", authentication, verdicts);
    }
    return verdicts;
  }

  /**
   * Baseline, the attack's records, the probe; then the judge. With {@code forgery} set
   * (authentication on) the real records are signed with the real key and the forged ones as it
   * says, and BLOCKED means refused as AUTH_FAILED at the first forged record's offset.
   */
  private static Verdict attack(
      KafkaProducer<byte[], byte[]> producer,
      PostgresDatabase dst,
      String sink,
      String topic,
      Attack attack,
      Forgery forgery) {
    java.util.Set<Forged> forged =
        java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    forged.addAll(attack.records());
    java.util.function.Function<Forged, AuthKey> signer =
        f -> forgery == null ? null : forged.contains(f) ? forgery.key : ForgedRecords.REAL;
    ForgedRecords.send(producer, topic, List.of(envelope(BASELINE)), signer);
    await("baseline applied")
        .atMost(WAIT)
        .until(() -> dst.queryLong("SELECT count(*) FROM ledger WHERE tx = 1") == 1);
    List<Forged> all = new ArrayList<>(attack.records());
    if (!attack
        .settle()
        .isZero()) { // harm that lasts while nothing follows: judged before the probe
      ForgedRecords.send(producer, topic, all, signer);
      await().pollDelay(attack.settle()).atMost(attack.settle().plusSeconds(1)).until(() -> true);
      if (dst.queryLong(attack.harmQuery()) > 0) {
        LOG.warn(
            "attack {}: harm found after {} by {}",
            attack.name(),
            attack.settle(),
            attack.harmQuery());
        return Verdict.FAILED;
      }
      all.clear();
    }
    all.add(envelope(PROBE));
    ForgedRecords.send(producer, topic, all, signer);
    await("attack " + attack.name() + " judged")
        .atMost(WAIT)
        .until(() -> STACK.rest().status(sink).isFailed() || probeApplied(dst));
    ConnectorStatus status = STACK.rest().status(sink);
    if (!status.isFailed()) { // records on another partition than the probe's may come later
      await().pollDelay(Duration.ofMillis(1500)).until(() -> true);
      status = STACK.rest().status(sink);
    }
    long harm = dst.queryLong(attack.harmQuery());
    if (harm > 0) {
      LOG.warn("attack {}: harm found by {}", attack.name(), attack.harmQuery());
      return Verdict.FAILED;
    }
    if (!status.isFailed()) {
      return Verdict.HARMLESS;
    }
    String trace = status.firstTrace();
    LOG.info("attack {} refused: {}", attack.name(), cause(trace));
    if (trace.contains(REAL + ":" + PROBE.getCommitLsn())) {
      LOG.warn("attack {}: the probe was refused: {}", attack.name(), trace);
      return Verdict.FAILED; // the attack made the sink refuse a real transaction after it
    }
    if (forgery != null) {
      int partition = attack.records().get(0).partition();
      String at =
          "topic " + topic + ", partition " + partition + ", offset " + (partition == 0 ? 1 : 0);
      if (trace.contains("AUTH_FAILED (reason " + forgery + ")") && trace.contains(at)) {
        return Verdict.BLOCKED;
      }
      LOG.warn(
          "attack {}: not refused as AUTH_FAILED {} at {}: {}", attack.name(), forgery, at, trace);
      return Verdict.FAILED;
    }
    for (String expected : attack.refusal()) {
      boolean absent = expected.startsWith("!");
      if (trace.contains(absent ? expected.substring(1) : expected) == absent) {
        LOG.warn(
            "attack {}: refused, but {} '{}': {}",
            attack.name(),
            absent ? "with" : "not with",
            expected,
            cause(trace));
        return Verdict.FAILED;
      }
    }
    if (attack.refusal().isEmpty()) {
      LOG.warn("attack {}: refused, no expected reason given: {}", attack.name(), cause(trace));
      return Verdict.FAILED;
    }
    return Verdict.BLOCKED;
  }

  /** The innermost cause's line of a task's trace: the named refusal. */
  private static String cause(String trace) {
    String last = trace.lines().findFirst().orElse("");
    for (String line : trace.lines().toList()) {
      if (line.startsWith("Caused by: ")) {
        last = line;
      }
    }
    return last.length() > 400 ? last.substring(0, 400) + "..." : last;
  }

  private static boolean probeApplied(PostgresDatabase dst) {
    return dst.queryLong("SELECT count(*) FROM ledger WHERE tx = 2") > 0;
  }

  private static Map<String, String> sinkConfig(
      PostgresDatabase dst, String topic, boolean authentication, Attack attack) {
    Map<String, String> extra = new HashMap<>();
    extra.put("relation.allowlist", "public.account,public.ledger,public.event");
    extra.putAll(attack.config());
    if (authentication) {
      extra.put("record.authentication.keys", "k1=the-real-source-secret-0001");
    }
    return ConnectorConfigs.sink(dst, topic, extra);
  }

  /**
   * The target as each attack finds it: four tables (secret outside the allowlist), the sink's own
   * schema and what an attack's setup made gone.
   */
  private static void reset(PostgresDatabase dst) {
    dst.execute(
        "DROP SCHEMA IF EXISTS trellara_sink CASCADE",
        "DROP TABLE IF EXISTS secret, ledger, account, event, part, fresh CASCADE",
        "DROP TYPE IF EXISTS mood",
        "CREATE TABLE account (id integer PRIMARY KEY, balance bigint NOT NULL)",
        "CREATE TABLE ledger (tx integer PRIMARY KEY, moves integer NOT NULL)",
        "CREATE TABLE event (id integer PRIMARY KEY, at timestamptz, note text, n integer)",
        "INSERT INTO event VALUES (1, '2026-01-02 03:04:05+00', 'a long note', 7)",
        "CREATE TABLE secret (id integer PRIMARY KEY, account_id integer REFERENCES account(id),"
            + " note text)",
        "INSERT INTO account SELECT g, 1000 FROM generate_series(1, " + ACCOUNTS + ") g",
        "INSERT INTO secret SELECT g, g, 'classified' FROM generate_series(1, 3) g");
  }

  private static KafkaProducer<byte[], byte[]> producer() {
    Map<String, Object> config = new HashMap<>(STACK.broker().clientConfig());
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
  }
}
