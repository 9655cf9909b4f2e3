package io.trellara.source.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.validation.ProtocolValidator;
import io.trellara.source.capture.CaptureTestSupport.EnvelopeCollector;
import io.trellara.source.pg.PublishedTables;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DDL event triggers of trellara-ddl-capture.sql end to end: installed (twice: it is
 * idempotent) on an embedded PostgreSQL 17, DDL and DML in one transaction, read through a pgoutput
 * protocol 2 replication stream, assembled and built into envelopes: the DDL events of captured
 * tables sit in order among the changes, and the DDL of everything else (temporary tables, other
 * schemas, uncaptured tables) is dropped.
 */
class DdlCaptureIT {

  private static EmbeddedPostgres postgres;

  @TempDir Path spill;

  @BeforeAll
  static void start() throws Exception {
    postgres = LiveReplication.start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (postgres != null) {
      postgres.close();
    }
  }

  @Test
  void ddlStatementsArriveAsDdlEventsInOrderWithTheirTransaction() throws Exception {
    String script = installScript();
    try (Connection c = connect()) {
      c.setAutoCommit(true);
      exec(c, script);
      exec(c, script);
      exec(c, "CREATE PUBLICATION trellara_it FOR ALL TABLES");
      exec(c, "SELECT pg_create_logical_replication_slot('trellara_it', 'pgoutput')");
      c.setAutoCommit(false);
      exec(c, "SET search_path = public");
      exec(c, "CREATE TABLE item (id integer PRIMARY KEY, name text)");
      exec(c, "INSERT INTO item VALUES (1, 'first')");
      exec(c, "ALTER TABLE item ADD COLUMN price numeric(12,2)");
      exec(c, "INSERT INTO item VALUES (2, 'second', 9.99)");
      c.commit();
      exec(c, "DROP TABLE item");
      c.commit();
      c.setAutoCommit(true);
      LiveReplication.markEnd(c);
    }

    EnvelopeCollector collector = new EnvelopeCollector();
    try (TransactionAssembler assembler =
        new TransactionAssembler(CaptureTestSupport.IDENTITY, settings("trellara_it"), collector)) {
      LiveReplication.readSlot(postgres, "trellara_it", "trellara_it", 2, assembler);
      assertThat(assembler.ddlEventsDropped()).isZero();
    }

    // the installation's own DDL ran before the slot existed: two envelopes, the DML+DDL one and
    // the DROP
    assertThat(collector.envelopes).hasSize(2);
    for (TransactionEnvelope e : collector.envelopes) {
      ProtocolValidator.validateEnvelope(e);
      TrellaraCodec.decodeEnvelope(TrellaraCodec.encode(e).bytes());
    }
    TransactionEnvelope tx = collector.envelopes.get(0);
    assertThat(tx.getDdlEventsList()).extracting(DdlEvent::getTotalOrder).containsExactly(1L, 3L);
    assertThat(tx.getChangesList()).extracting(ChangeRecord::getTotalOrder).containsExactly(2L, 4L);
    DdlEvent create = tx.getDdlEvents(0);
    assertThat(create.getCommandTag()).isEqualTo("CREATE TABLE");
    assertThat(create.getObjectType()).isEqualTo("table");
    assertThat(create.getObjectIdentity()).isEqualTo("public.item");
    assertThat(create.getSchemaName()).isEqualTo("public");
    assertThat(create.getStatement())
        .isEqualTo("CREATE TABLE item (id integer PRIMARY KEY, name text)");
    assertThat(create.getSearchPath()).isEqualTo("public");
    assertThat(tx.getDdlEvents(1).getCommandTag()).isEqualTo("ALTER TABLE");
    assertThat(tx.getDdlEvents(1).getObjectIdentity()).isEqualTo("public.item");
    assertThat(tx.getChanges(1).getAfter().getColumnsCount()).isEqualTo(3);
    assertThat(Rows.definition(tx, tx.getChanges(1), "price").getTypeName())
        .isEqualTo("numeric(12,2)");
    assertThat(tx.getSchemaVersionsCount())
        .as("the item table before and after ADD COLUMN")
        .isEqualTo(2);
    assertThat(tx.getChangesList())
        .as("two versions of one relation: each change names its own")
        .extracting(ChangeRecord::getSchemaFingerprint)
        .containsExactly(
            tx.getSchemaVersions(0).getFingerprint(), tx.getSchemaVersions(1).getFingerprint());
    assertThat(tx.getBeginLsn()).isNotEmpty();

    TransactionEnvelope drop = collector.envelopes.get(1);
    assertThat(drop.getChangesCount()).isZero();
    assertThat(drop.getDdlEventsCount()).isEqualTo(1);
    assertThat(drop.getDdlEvents(0).getCommandTag()).isEqualTo("DROP TABLE");
    assertThat(drop.getDdlEvents(0).getObjectIdentity()).isEmpty();
    assertThat(drop.getDdlEvents(0).getStatement()).isEqualTo("DROP TABLE item");
    assertThat(List.of(create, tx.getDdlEvents(1), drop.getDdlEvents(0)))
        .extracting(DdlEvent::getRelation)
        .extracting(RelationId::getSchema, RelationId::getTable)
        .containsOnly(org.assertj.core.groups.Tuple.tuple("public", "item"));
    assertThat(create.getRelation().getSourceOid())
        .isNotZero()
        .isEqualTo(drop.getDdlEvents(0).getRelation().getSourceOid());
    dropSlot("trellara_it");
  }

  @Test
  void onlyDdlOfCapturedTablesBecomesDdlEventsWhileOtherSessionsRunUnrelatedDdl() throws Exception {
    long capturedOid;
    try (Connection app = connect();
        Connection other = connect()) {
      app.setAutoCommit(true);
      exec(app, installScript());
      exec(app, "CREATE SCHEMA other_schema");
      exec(app, "CREATE TABLE public.captured (id integer PRIMARY KEY, v text)");
      exec(app, "CREATE TABLE public.uncaptured (id integer PRIMARY KEY)");
      exec(app, "CREATE PUBLICATION trellara_filter FOR TABLE public.captured");
      exec(app, "SELECT pg_create_logical_replication_slot('trellara_filter', 'pgoutput')");
      capturedOid = oid(app, "public.captured");
      other.setAutoCommit(true);

      app.setAutoCommit(false); // the captured table receives transactions ...
      exec(app, "INSERT INTO public.captured VALUES (1, 'a')");
      exec(
          other,
          "CREATE TEMP TABLE t_tmp(x int); DROP TABLE t_tmp;"); // ... while others run their DDL
      exec(app, "CREATE TEMP TABLE t_own(x int)"); // in the captured transaction itself: takes no
      // total_order
      exec(app, "INSERT INTO public.captured VALUES (2, 'b')");
      exec(other, "CREATE TABLE other_schema.x (id serial PRIMARY KEY, a text)");
      app.commit();
      exec(app, "INSERT INTO public.captured VALUES (3, 'c')");
      exec(other, "ALTER TABLE other_schema.x ADD COLUMN b int");
      exec(other, "CREATE INDEX uncaptured_id ON public.uncaptured (id)");
      exec(other, "GRANT SELECT ON public.uncaptured TO PUBLIC");
      exec(app, "ALTER TABLE public.captured ADD COLUMN note text");
      exec(app, "INSERT INTO public.captured VALUES (4, 'd', 'n')");
      app.commit();
      app.setAutoCommit(true);
      exec(app, "CREATE INDEX captured_v ON public.captured (v)");
      exec(app, "DROP TABLE public.captured");
      LiveReplication.markEnd(app);
    }

    EnvelopeCollector collector = new EnvelopeCollector();
    try (TransactionAssembler assembler =
        new TransactionAssembler(
            CaptureTestSupport.IDENTITY, settings("trellara_filter"), collector)) {
      LiveReplication.readSlot(postgres, "trellara_filter", "trellara_filter", 2, assembler);
      // CREATE TEMP + DROP t_tmp, CREATE TEMP t_own, CREATE TABLE x, ALTER TABLE x, CREATE INDEX,
      // GRANT
      assertThat(assembler.ddlEventsDropped()).isEqualTo(7);
    }
    assertThat(collector.envelopes).hasSize(4);
    for (TransactionEnvelope e : collector.envelopes) {
      ProtocolValidator.validateEnvelope(e);
    }
    TransactionEnvelope first = collector.envelopes.get(0);
    assertThat(first.getDdlEventsCount()).isZero();
    assertThat(first.getChangesList())
        .extracting(ChangeRecord::getTotalOrder)
        .containsExactly(1L, 2L);
    List<DdlEvent> ddl =
        collector.envelopes.stream().flatMap(e -> e.getDdlEventsList().stream()).toList();
    assertThat(ddl)
        .extracting(DdlEvent::getCommandTag)
        .containsExactly("ALTER TABLE", "CREATE INDEX", "DROP TABLE");
    RelationId captured =
        RelationId.newBuilder()
            .setSchema("public")
            .setTable("captured")
            .setSourceOid((int) capturedOid)
            .build();
    assertThat(ddl).extracting(DdlEvent::getRelation).containsOnly(captured);
    TransactionEnvelope alter = collector.envelopes.get(1);
    assertThat(alter.getChangesList())
        .extracting(ChangeRecord::getTotalOrder)
        .containsExactly(1L, 3L);
    assertThat(alter.getDdlEventsList()).extracting(DdlEvent::getTotalOrder).containsExactly(2L);
    dropSlot("trellara_filter");
  }

  @Test
  void withDdlCaptureDisabledNotEvenDdlOfACapturedTableBecomesADdlEvent() throws Exception {
    try (Connection c = connect()) {
      c.setAutoCommit(true);
      exec(c, installScript());
      exec(c, "CREATE TABLE public.quiet (id integer PRIMARY KEY)");
      exec(c, "CREATE PUBLICATION trellara_quiet FOR TABLE public.quiet");
      exec(c, "SELECT pg_create_logical_replication_slot('trellara_quiet', 'pgoutput')");
      c.setAutoCommit(false);
      exec(c, "INSERT INTO public.quiet VALUES (1)");
      exec(c, "ALTER TABLE public.quiet ADD COLUMN note text");
      exec(c, "INSERT INTO public.quiet VALUES (2, 'n')");
      c.commit();
      c.setAutoCommit(true);
      LiveReplication.markEnd(c);
    }

    EnvelopeCollector collector = new EnvelopeCollector();
    try (TransactionAssembler assembler =
        new TransactionAssembler(
            CaptureTestSupport.IDENTITY,
            settings("trellara_quiet").withDdlCapture(false),
            collector)) {
      LiveReplication.readSlot(postgres, "trellara_quiet", "trellara_quiet", 2, assembler);
      assertThat(assembler.ddlEventsDropped()).isEqualTo(1);
    }
    assertThat(collector.envelopes).hasSize(1);
    TransactionEnvelope e = collector.envelopes.get(0);
    ProtocolValidator.validateEnvelope(e);
    assertThat(e.getDdlEventsCount()).isZero();
    assertThat(e.getChangesList()).extracting(ChangeRecord::getTotalOrder).containsExactly(1L, 2L);
    dropSlot("trellara_quiet");
  }

  @Test
  void eachDdlEventNamesTheTableItsObjectsBelongToEvenForSequencesConstraintsAndHostileNames()
      throws Exception {
    try (Connection c = connect()) {
      c.setAutoCommit(true);
      exec(c, installScript());
      exec(c, "CREATE SCHEMA owned_schema");
      exec(c, "CREATE PUBLICATION trellara_owned FOR TABLES IN SCHEMA owned_schema");
      exec(c, "SELECT pg_create_logical_replication_slot('trellara_owned', 'pgoutput')");
      exec(
          c,
          "CREATE TABLE owned_schema.t (id serial PRIMARY KEY, gone int)"); // reports its sequence
      // first
      exec(c, "ALTER SEQUENCE owned_schema.t_id_seq RESTART 5");
      exec(c, "ALTER TABLE owned_schema.t ADD CONSTRAINT positive CHECK (id > 0)");
      exec(
          c,
          "ALTER TABLE owned_schema.t DROP COLUMN gone"); // sql_drop and ddl_command_end: one event
      exec(c, "CREATE TABLE owned_schema.\"we,ird\"\".na:me\" (id integer PRIMARY KEY)");
      LiveReplication.markEnd(c);
    }

    EnvelopeCollector collector = new EnvelopeCollector();
    try (TransactionAssembler assembler =
        new TransactionAssembler(
            CaptureTestSupport.IDENTITY, settings("trellara_owned"), collector)) {
      LiveReplication.readSlot(postgres, "trellara_owned", "trellara_owned", 2, assembler);
      assertThat(assembler.ddlEventsDropped()).isZero();
    }
    List<DdlEvent> ddl =
        collector.envelopes.stream().flatMap(e -> e.getDdlEventsList().stream()).toList();
    assertThat(ddl)
        .extracting(DdlEvent::getCommandTag)
        .containsExactly(
            "CREATE TABLE", "ALTER SEQUENCE", "ALTER TABLE", "ALTER TABLE", "CREATE TABLE");
    assertThat(ddl)
        .extracting(d -> d.getRelation().getSchema() + "|" + d.getRelation().getTable())
        .containsExactly(
            "owned_schema|t",
            "owned_schema|t",
            "owned_schema|t",
            "owned_schema|t",
            "owned_schema|we,ird\".na:me");
    assertThat(ddl).allSatisfy(d -> assertThat(d.getRelation().getSourceOid()).isNotZero());
    dropSlot("trellara_owned");
  }

  /**
   * bug 4 (docs/benchmarks.md): a transaction whose only event is an ALTER TABLE of a captured
   * table carries the table's new schema version, built from the trigger's description of the
   * catalog; the Relation message pgoutput sends before the table's next row gives the same version
   * (same fingerprint, same type names: the same instance), for built-in types with and without
   * typmods, arrays, a domain (over a domain), an enum, and every replica identity kind.
   */
  @Test
  void aDdlOnlyTransactionCarriesTheSchemaVersionTheNextRelationMessageGives() throws Exception {
    String[] tables = {"shape_pk", "shape_full", "shape_index", "shape_nothing"};
    try (Connection c = connect()) {
      c.setAutoCommit(true);
      exec(c, installScript());
      exec(c, "CREATE SCHEMA shapes");
      exec(c, "CREATE TYPE shapes.mood AS ENUM ('calm', 'cross')");
      exec(c, "CREATE DOMAIN shapes.positive AS integer CHECK (VALUE > 0)");
      exec(c, "CREATE DOMAIN shapes.small_positive AS shapes.positive CHECK (VALUE < 100)");
      for (String t : tables) {
        exec(
            c,
            "CREATE TABLE shapes."
                + t
                + " (id integer NOT NULL, code char(3) NOT NULL, name text,"
                + " gone int, label varchar(20), amount numeric(12,2), at timestamptz,"
                + " at3 timestamp(3), span interval day to second(2), tags text[], ints int4[],"
                + " mood shapes.mood, level shapes.small_positive, big bigint,"
                + " twice int GENERATED ALWAYS AS (id * 2) STORED, PRIMARY KEY (id, code))");
        exec(c, "CREATE UNIQUE INDEX " + t + "_name ON shapes." + t + " (big, id)");
        exec(c, "ALTER TABLE shapes." + t + " ALTER COLUMN big SET NOT NULL");
        exec(c, "ALTER TABLE shapes." + t + " DROP COLUMN gone");
      }
      exec(c, "ALTER TABLE shapes.shape_full REPLICA IDENTITY FULL");
      exec(c, "ALTER TABLE shapes.shape_index REPLICA IDENTITY USING INDEX shape_index_name");
      exec(c, "ALTER TABLE shapes.shape_nothing REPLICA IDENTITY NOTHING");
      // in another publication with a column list: the trigger does not describe it (pgoutput may
      // send fewer columns), so it keeps evolving at its next row
      exec(c, "CREATE TABLE shapes.listed (id int PRIMARY KEY, secret text)");
      exec(c, "CREATE PUBLICATION trellara_listed FOR TABLE shapes.listed (id)");
      exec(c, "CREATE PUBLICATION trellara_shapes FOR TABLES IN SCHEMA shapes");
      exec(c, "SELECT pg_create_logical_replication_slot('trellara_shapes', 'pgoutput')");
      c.setAutoCommit(false);
      for (String t : tables) {
        exec(c, "ALTER TABLE shapes." + t + " ADD COLUMN x int, ADD COLUMN y numeric(5,1)[]");
      }
      exec(c, "ALTER TABLE shapes.listed ADD COLUMN x int");
      c.commit();
      exec(c, "INSERT INTO shapes.listed VALUES (1, 's', 2)");
      for (String t : tables) {
        exec(
            c,
            "INSERT INTO shapes."
                + t
                + " (id, code, big, level, mood) VALUES (1, 'abc', 7, 5, 'calm')");
      }
      c.commit();
      c.setAutoCommit(true);
      LiveReplication.markEnd(c);
    }

    EnvelopeCollector collector = new EnvelopeCollector();
    try (TransactionAssembler assembler =
        new TransactionAssembler(
            CaptureTestSupport.IDENTITY, settings("trellara_shapes"), collector)) {
      LiveReplication.readSlot(postgres, "trellara_shapes", "trellara_shapes", 2, assembler);
      assertThat(assembler.relations().versionCount())
          .as("one version per table: the Relation message found the DDL's")
          .isEqualTo(tables.length + 1);
    }
    assertThat(collector.envelopes).hasSize(2);
    TransactionEnvelope ddl = collector.envelopes.get(0);
    TransactionEnvelope rows = collector.envelopes.get(1);
    ProtocolValidator.validateEnvelope(ddl);
    ProtocolValidator.validateEnvelope(rows);
    assertThat(ddl.getChangesCount()).isZero();
    assertThat(ddl.getDdlEventsCount()).isEqualTo(tables.length + 1);
    assertThat(ddl.getSchemaVersionsList())
        .extracting(v -> v.getRelation().getTable())
        .as("every table but the one with a column list, in DDL order")
        .containsExactly(tables);
    assertThat(rows.getSchemaVersionsList())
        .as("the DDL's versions are the ones pgoutput's Relation messages gave the rows")
        .containsAll(ddl.getSchemaVersionsList())
        .extracting(v -> v.getRelation().getTable())
        .containsExactlyInAnyOrder("listed", tables[0], tables[1], tables[2], tables[3]);
    SchemaVersion pk = ddl.getSchemaVersions(0);
    assertThat(pk.getColumnsList())
        .extracting(col -> col.getName() + " " + col.getTypeName() + (col.getKey() ? " key" : ""))
        .containsExactly(
            "id integer key",
            "code character(3) key",
            "name text",
            "label character varying(20)",
            "amount numeric(12,2)",
            "at timestamp with time zone",
            "at3 timestamp(3) without time zone",
            "span interval day to second(2)",
            "tags text[]",
            "ints integer[]",
            "mood shapes.mood",
            "level int4", // pgoutput's Type message names a domain by its base type's typname
            "big bigint",
            "x integer",
            "y numeric(5,1)[]");
    assertThat(ddl.getSchemaVersions(1).getColumnsList()).noneMatch(col -> col.getKey());
    assertThat(ddl.getSchemaVersions(2).getColumnsList())
        .filteredOn(col -> col.getKey())
        .extracting(col -> col.getName())
        .containsExactly("id", "big");
    assertThat(ddl.getSchemaVersions(3).getColumnsList()).noneMatch(col -> col.getKey());
    dropSlot("trellara_shapes");
  }

  /**
   * Capture settings as a task would start with: the publication's tables read before streaming.
   */
  private CaptureSettings settings(String publication) throws SQLException {
    try (Connection c = connect()) {
      return CaptureSettings.defaults(spill)
          .withCapturedTables(PublishedTables.load(c, publication));
    }
  }

  private static String installScript() throws Exception {
    try (InputStream in = DdlCaptureIT.class.getResourceAsStream("/trellara-ddl-capture.sql")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static long oid(Connection c, String table) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT '" + table + "'::regclass::oid")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void dropSlot(String slot) throws SQLException {
    try (Connection c = connect()) {
      exec(c, "SELECT pg_drop_replication_slot('" + slot + "')");
    }
  }

  private static Connection connect() throws SQLException {
    return DriverManager.getConnection(postgres.getJdbcUrl("postgres", "postgres"));
  }

  private static void exec(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
