package io.trellara.source.pgoutput;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.PGReplicationStream;
import org.postgresql.replication.fluent.logical.ChainedLogicalStreamBuilder;

/**
 * The capture scenarios behind the pgoutput fixtures: runs SQL workloads against an embedded
 * PostgreSQL 17 and returns the raw pgoutput messages each one produced. Used by {@link
 * PgOutputFixtureCapture} (writes the fixture files) and by {@code PgOutputLiveCaptureIT} (parses
 * what a live server sends).
 *
 * <p>Every scenario gets its own replication slot, created just before its workload runs, and its
 * own replication connection, so each scenario's stream starts with fresh Relation messages. The
 * end of a scenario's stream is marked by a non-transactional logical message with prefix {@value
 * #END_PREFIX}, which is not part of the returned messages.
 */
final class PgOutputCaptureScenarios implements AutoCloseable {

  static final String PUBLICATION = "trellara_pub";
  static final String END_PREFIX = "trellara.fixture.end";

  /** The scenarios, in capture order (later ones rely on the data earlier ones leave). */
  enum Scenario {
    MULTI_TABLE_DML("multi-table-dml", 2, false),
    TOAST_UNCHANGED("toast-unchanged", 2, false),
    OLD_TUPLES("old-tuples", 2, false),
    STREAMED_PROTO2("streamed-proto2", 2, false),
    LARGE_PROTO1("large-proto1", 1, false),
    LOGICAL_MESSAGES("logical-messages", 2, false),
    TYPE_AND_ORIGIN("type-and-origin", 2, false),
    BINARY_PROTO2("binary-proto2", 2, true);

    final String fileName;
    final int protocolVersion;
    final boolean binary;

    Scenario(String fileName, int protocolVersion, boolean binary) {
      this.fileName = fileName;
      this.protocolVersion = protocolVersion;
      this.binary = binary;
    }

    String slotOptions() {
      return "proto_version="
          + protocolVersion
          + (protocolVersion >= 2 ? " streaming=on" : "")
          + " messages=true"
          + (binary ? " binary=true" : "")
          + " publication_names="
          + PUBLICATION;
    }
  }

  static final String SCHEMA =
      """
      CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
      CREATE DOMAIN positive_int AS integer CHECK (VALUE > 0);
      CREATE TABLE account (id bigint PRIMARY KEY, owner text NOT NULL, balance numeric(12,2),
        opened_at timestamptz, photo bytea, attrs jsonb, tags text[], ext_id uuid, active boolean);
      CREATE TABLE orders (id integer PRIMARY KEY, account_id bigint NOT NULL, amount numeric,
        note varchar(200), placed_at timestamptz);
      CREATE TABLE scratch (id serial PRIMARY KEY, v text);
      CREATE TABLE ledger_full (entry_id integer NOT NULL, account_id bigint, amount numeric(12,2), memo text);
      ALTER TABLE ledger_full REPLICA IDENTITY FULL;
      CREATE TABLE document (id integer PRIMARY KEY, title text, body text);
      ALTER TABLE document ALTER COLUMN body SET STORAGE EXTERNAL;
      CREATE TABLE bulk_item (id integer PRIMARY KEY, batch text NOT NULL, payload text);
      CREATE TABLE mood_log (id integer PRIMARY KEY, mood mood, score positive_int);
      CREATE PUBLICATION trellara_pub FOR ALL TABLES;
      SELECT pg_replication_origin_create('trellara_upstream');
      """;

  private final EmbeddedPostgres postgres;
  private int slotCounter;

  private PgOutputCaptureScenarios(EmbeddedPostgres postgres) {
    this.postgres = postgres;
  }

  /**
   * Starts embedded PostgreSQL 17 with logical decoding and a 64 kB decoding memory, and creates
   * the schema.
   */
  static PgOutputCaptureScenarios start() throws Exception {
    EmbeddedPostgres pg =
        EmbeddedPostgres.builder()
            .setServerConfig("wal_level", "logical")
            .setServerConfig("max_replication_slots", "20")
            .setServerConfig("max_wal_senders", "20")
            .setServerConfig("logical_decoding_work_mem", "64kB")
            .setServerConfig("timezone", "Pacific/Chatham")
            .start();
    PgOutputCaptureScenarios scenarios = new PgOutputCaptureScenarios(pg);
    try (Connection c = scenarios.connect();
        Statement s = c.createStatement()) {
      s.execute(SCHEMA);
    } catch (Exception e) {
      pg.close();
      throw e;
    }
    return scenarios;
  }

  String serverVersion() throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement();
        var rs = s.executeQuery("SHOW server_version")) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** Runs every scenario in order and returns the messages of each. */
  Map<Scenario, List<byte[]>> runAll() throws Exception {
    Map<Scenario, List<byte[]>> result = new LinkedHashMap<>();
    for (Scenario scenario : Scenario.values()) {
      result.put(scenario, run(scenario));
    }
    return result;
  }

  /**
   * Runs one scenario: prepare data, create a slot, run the workload, mark the end, read the
   * stream.
   */
  List<byte[]> run(Scenario scenario) throws Exception {
    try (Connection a = connect();
        Connection b = connect()) {
      prepare(scenario, a);
      String slot = "trellara_fx_" + (++slotCounter);
      exec(a, "SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
      workload(scenario, a, b);
      exec(a, "SELECT pg_logical_emit_message(false, '" + END_PREFIX + "', 'end')");
      return readUntilEnd(scenario, slot);
    }
  }

  private void prepare(Scenario scenario, Connection c) throws SQLException {
    switch (scenario) {
      case MULTI_TABLE_DML ->
          exec(
              c,
              """
          INSERT INTO scratch (v) VALUES ('a'), ('b');
          INSERT INTO orders VALUES (9, 1, 5.00, 'to be deleted', '2026-11-01 10:00:00+00');
          """);
      case TOAST_UNCHANGED ->
          exec(
              c,
              """
          INSERT INTO document VALUES (1, 'v1',
            (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 200) g));
          """);
      case OLD_TUPLES ->
          exec(
              c,
              """
          INSERT INTO account (id, owner, balance) VALUES (30, 'carol', 10.00), (31, 'dave', 20.00);
          INSERT INTO ledger_full VALUES (1, 30, 5.00, 'm1'), (2, 31, 6.00, 'm2');
          """);
      case STREAMED_PROTO2 -> exec(c, "INSERT INTO scratch (v) VALUES ('s4')");
      case LARGE_PROTO1 -> exec(c, "TRUNCATE bulk_item; INSERT INTO scratch (v) VALUES ('s5')");
      default -> {}
    }
  }

  private void workload(Scenario scenario, Connection a, Connection b) throws SQLException {
    switch (scenario) {
      case MULTI_TABLE_DML ->
          exec(
              a,
              """
          BEGIN;
          INSERT INTO account VALUES (1, 'alice', 1234.50, '2026-11-29 12:34:56.789012+00', '\\x00ff10'::bytea,
            '{"tier": "gold", "n": [1, 2]}', '{red,"with space",NULL}', '6f1c2a9e-3b7d-4c1e-9a2f-0d8e7b6a5c4d', true);
          INSERT INTO account (id, owner) VALUES (2, 'bob');
          INSERT INTO orders VALUES (10, 1, 99.95, 'first order', '2026-11-29 08:00:00+05:30');
          UPDATE account SET balance = balance - 99.95 WHERE id = 1;
          DELETE FROM orders WHERE id = 9;
          TRUNCATE scratch RESTART IDENTITY CASCADE;
          COMMIT;
          """);
      case TOAST_UNCHANGED -> exec(a, "UPDATE document SET title = 'v2' WHERE id = 1");
      case OLD_TUPLES -> {
        exec(
            a,
            "BEGIN; UPDATE account SET id = 32 WHERE id = 30; DELETE FROM account WHERE id = 31; COMMIT;");
        exec(
            a,
            "BEGIN; UPDATE ledger_full SET memo = 'changed' WHERE entry_id = 1;"
                + " DELETE FROM ledger_full WHERE entry_id = 2; COMMIT;");
      }
      case STREAMED_PROTO2, LARGE_PROTO1 -> bigWorkload(a, b);
      case LOGICAL_MESSAGES ->
          exec(
              a,
              """
          BEGIN;
          INSERT INTO orders VALUES (60, 1, 1.00, 'before ddl', '2026-11-29 09:00:00+00');
          SELECT pg_logical_emit_message(true, 'trellara.ddl', '{"command":"ALTER TABLE","object":"public.orders"}');
          INSERT INTO orders VALUES (61, 1, 2.00, 'after ddl', '2026-11-29 09:00:01+00');
          COMMIT;
          SELECT pg_logical_emit_message(false, 'trellara.audit', 'non-transactional hello');
          SELECT pg_logical_emit_message(false, 'trellara.bin', '\\x00ff7f'::bytea);
          """);
      case TYPE_AND_ORIGIN ->
          exec(
              a,
              """
          SELECT pg_replication_origin_session_setup('trellara_upstream');
          BEGIN;
          SELECT pg_replication_origin_xact_setup('0/ABCDEF', '2026-11-29 10:00:00+00');
          INSERT INTO mood_log VALUES (1, 'happy', 7);
          COMMIT;
          SELECT pg_replication_origin_session_reset();
          BEGIN;
          INSERT INTO mood_log VALUES (2, 'sad', 1), (3, NULL, NULL);
          COMMIT;
          """);
      case BINARY_PROTO2 ->
          exec(
              a,
              """
          INSERT INTO account VALUES (80, 'erin', 42.00, '2026-01-01 00:00:00+00', '\\x01'::bytea,
            '{"a": 1}', '{x}', '00000000-0000-0000-0000-000000000001', false);
          """);
    }
  }

  /**
   * Transaction A (3,000 rows inserted, 500 of them in a savepoint rolled back, plus a
   * transactional logical message and a truncate) commits; transaction B (1,400 rows, 400 of them
   * in a savepoint rolled back) runs at the same time and rolls back. Both exceed
   * logical_decoding_work_mem (64 kB) and stream under protocol 2.
   */
  private static void bigWorkload(Connection a, Connection b) throws SQLException {
    exec(a, "BEGIN; " + bulkInsert(1, 1000, "A"));
    exec(b, "BEGIN; " + bulkInsert(100_001, 100_800, "B"));
    exec(a, "SAVEPOINT sp1; " + bulkInsert(1001, 1500, "A-rolled-back"));
    exec(b, "SAVEPOINT sb1; " + bulkInsert(100_801, 101_200, "B-rolled-back"));
    exec(a, "ROLLBACK TO SAVEPOINT sp1");
    exec(b, "ROLLBACK TO SAVEPOINT sb1");
    exec(
        a,
        "SELECT pg_logical_emit_message(true, 'trellara.ddl', '{\"command\":\"streamed marker\"}');"
            + " TRUNCATE scratch; "
            + bulkInsert(1501, 3000, "A"));
    exec(b, bulkInsert(101_201, 101_400, "B") + " ROLLBACK;");
    exec(a, "COMMIT");
  }

  private static String bulkInsert(int from, int to, String batch) {
    return "INSERT INTO bulk_item SELECT g, '"
        + batch
        + "', repeat('"
        + batch.charAt(0)
        + "', 60) || g"
        + " FROM generate_series("
        + from
        + ", "
        + to
        + ") g;";
  }

  private List<byte[]> readUntilEnd(Scenario scenario, String slot) throws Exception {
    List<byte[]> messages = new ArrayList<>();
    try (Connection replication = connectForReplication()) {
      ChainedLogicalStreamBuilder builder =
          replication
              .unwrap(PGConnection.class)
              .getReplicationAPI()
              .replicationStream()
              .logical()
              .withSlotName(slot)
              .withSlotOption("proto_version", String.valueOf(scenario.protocolVersion))
              .withSlotOption("publication_names", PUBLICATION)
              .withSlotOption("messages", "true")
              .withStatusInterval(1, TimeUnit.SECONDS);
      if (scenario.protocolVersion >= 2) {
        builder = builder.withSlotOption("streaming", "on");
      }
      if (scenario.binary) {
        builder = builder.withSlotOption("binary", "true");
      }
      try (PGReplicationStream stream = builder.start()) {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (true) {
          ByteBuffer buffer = stream.readPending();
          if (buffer == null) {
            if (System.nanoTime() > deadline) {
              throw new IllegalStateException(
                  "scenario "
                      + scenario
                      + ": no end marker after 120 s, "
                      + messages.size()
                      + " messages received");
            }
            LockSupport.parkNanos(2_000_000L);
            continue;
          }
          byte[] bytes = new byte[buffer.remaining()];
          buffer.duplicate().get(bytes);
          if (isEndMarker(bytes)) {
            return messages;
          }
          messages.add(bytes);
        }
      }
    }
  }

  /** Non-transactional 'M' outside a stream block: 'M' | Int8 flags | Int64 LSN | prefix NUL ... */
  private static boolean isEndMarker(byte[] bytes) {
    byte[] prefix = (END_PREFIX + '\0').getBytes(StandardCharsets.UTF_8);
    if (bytes.length < 10 + prefix.length || bytes[0] != 'M' || bytes[1] != 0) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (bytes[10 + i] != prefix[i]) {
        return false;
      }
    }
    return true;
  }

  Connection connect() throws SQLException {
    return DriverManager.getConnection(postgres.getJdbcUrl("postgres", "postgres"));
  }

  private Connection connectForReplication() throws SQLException {
    Properties props = new Properties();
    PGProperty.USER.set(props, "postgres");
    PGProperty.ASSUME_MIN_SERVER_VERSION.set(props, "9.4");
    PGProperty.REPLICATION.set(props, "database");
    PGProperty.PREFER_QUERY_MODE.set(props, "simple");
    return DriverManager.getConnection(postgres.getJdbcUrl("postgres", "postgres"), props);
  }

  private static void exec(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  @Override
  public void close() throws Exception {
    postgres.close();
  }
}
