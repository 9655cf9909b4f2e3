package io.trellara.source.capture;

import static io.trellara.source.capture.LiveReplication.exec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.source.capture.CaptureTestSupport.EnvelopeCollector;
import io.trellara.source.pg.PublishedTables;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A role on the source database that can log in but is not trusted, against DDL capture, on an
 * embedded PostgreSQL 17 with trellara-ddl-capture.sql installed: it cannot write a {@code
 * trellara.ddl} message at all (PostgreSQL refuses the call); a message that is malformed or names
 * a role outside {@code ddl.message.roles} (what a role an administrator granted EXECUTE could
 * still write) is skipped, counted, never fatal, and the transactions around it are published; the
 * real DDL of the tables' owner is still captured, with its role recorded by the trigger.
 */
class DdlMessageAuthorshipIT {

  /** The attack of issue 29: a RENAME of a captured table that never happened. */
  private static final String SPOOFED_RENAME =
      "{\"command_tag\": \"ALTER TABLE\", \"object_type\": \"table\", \"object_identity\":"
          + " \"public.accounts\", \"schema_name\": \"public\", \"statement\": \"ALTER TABLE"
          + " accounts RENAME TO accounts_old\", \"search_path\": \"public\", \"relations\":"
          + " \"\\\"public\\\".\\\"accounts\\\":0\", \"temporary\": \"false\"";

  private static EmbeddedPostgres postgres;

  @TempDir Path spill;

  @BeforeAll
  static void start() throws Exception {
    postgres = LiveReplication.start();
    try (Connection c = connect("postgres")) {
      exec(c, installScript());
      exec(c, "CREATE ROLE app_owner LOGIN");
      exec(c, "CREATE ROLE migrator LOGIN IN ROLE app_owner");
      exec(c, "CREATE ROLE mallory LOGIN");
      exec(c, "CREATE TABLE accounts (id integer PRIMARY KEY, balance integer)");
      exec(c, "ALTER TABLE accounts OWNER TO app_owner");
      exec(c, "CREATE PUBLICATION accounts_pub FOR TABLE accounts");
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (postgres != null) {
      postgres.close();
    }
  }

  @Test
  void aLoginOnlyRoleCannotWriteADdlMessageAtAll() throws Exception {
    createSlot("mallory_direct");
    try (Connection m = connect("mallory")) {
      for (String call :
          List.of(
              "SELECT pg_logical_emit_message(true, 'trellara.ddl', '"
                  + SPOOFED_RENAME
                  + ", \"role\": \"app_owner\"}')",
              "SELECT pg_logical_emit_message(true, 'trellara.ddl', convert_to('"
                  + SPOOFED_RENAME
                  + "}', 'UTF8'))",
              "SELECT pg_catalog.pg_logical_emit_message(true, 'trellara.ddl', '{', true)")) {
        assertThatThrownBy(() -> exec(m, call))
            .isInstanceOf(SQLException.class)
            .hasMessageContaining("permission denied for function pg_logical_emit_message")
            .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("42501"));
      }
    }
    try (Connection c = connect("postgres")) {
      exec(c, "INSERT INTO accounts VALUES (1, 100)");
      LiveReplication.markEnd(c);
    }
    Read r = read("mallory_direct", null);
    assertThat(r.refused).isZero();
    assertThat(r.envelopes).hasSize(1);
    assertThat(r.envelopes.get(0).getDdlEventsCount()).isZero();
    assertThat(r.envelopes.get(0).getChangesCount()).isEqualTo(1);
  }

  /**
   * A role an administrator granted EXECUTE (or a database where the revoke was undone) writes the
   * spoofed RENAME without a role, and with its own: both are refused and skipped; the transaction
   * after them is published, nothing stops.
   */
  @Test
  void aDdlMessageNamingNoRoleOrAnUnlistedOneIsSkippedAndTheNextTransactionPublished()
      throws Exception {
    createSlot("mallory_granted");
    try (Connection c = connect("postgres")) {
      exec(
          c,
          "GRANT EXECUTE ON FUNCTION pg_logical_emit_message(boolean, text, text, boolean) TO"
              + " mallory");
    }
    try (Connection m = connect("mallory")) {
      m.setAutoCommit(false);
      exec(m, "SELECT pg_logical_emit_message(true, 'trellara.ddl', '" + SPOOFED_RENAME + "}')");
      m.commit();
      exec(
          m,
          "SELECT pg_logical_emit_message(true, 'trellara.ddl', '"
              + SPOOFED_RENAME
              + ", \"role\": \"mallory\", \"session_user\": \"mallory\"}')");
      m.commit();
    } finally {
      try (Connection c = connect("postgres")) {
        exec(
            c,
            "REVOKE EXECUTE ON FUNCTION pg_logical_emit_message(boolean, text, text, boolean) FROM"
                + " mallory");
        exec(c, "INSERT INTO accounts VALUES (2, 200)");
        LiveReplication.markEnd(c);
      }
    }
    Read r = read("mallory_granted", null);
    assertThat(r.refused).isEqualTo(2);
    assertThat(r.envelopes).as("the two forged messages alone are empty commits").hasSize(1);
    assertThat(r.envelopes.get(0).getDdlEventsCount()).isZero();
    assertThat(r.envelopes.get(0).getChanges(0).getTotalOrder()).isEqualTo(1);
  }

  /**
   * Not the trigger's JSON, from a path that may write it (a superuser): bad JSON, a relations
   * field that is no list, a temporary flag that is no boolean, bytes that are not UTF-8. Each is
   * skipped; the rows of its transaction and the next transaction are published.
   */
  @Test
  void malformedDdlMessagesAreSkippedAndTheRestOfTheirTransactionIsPublished() throws Exception {
    createSlot("malformed");
    try (Connection c = connect("postgres")) {
      c.setAutoCommit(false);
      exec(c, "INSERT INTO accounts VALUES (10, 1)");
      exec(c, "SELECT pg_logical_emit_message(true, 'trellara.ddl', '{\"command_tag\": ')");
      exec(
          c,
          "SELECT pg_logical_emit_message(true, 'trellara.ddl', '{\"command_tag\": \"ALTER"
              + " TABLE\", \"relations\": \"public.accounts\", \"role\": \"postgres\"}')");
      exec(
          c,
          "SELECT pg_logical_emit_message(true, 'trellara.ddl', '{\"command_tag\": \"ALTER"
              + " TABLE\", \"temporary\": \"maybe\", \"role\": \"postgres\"}')");
      exec(c, "SELECT pg_logical_emit_message(true, 'trellara.ddl', '\\xff0a7b'::bytea)");
      exec(c, "INSERT INTO accounts VALUES (11, 2)");
      c.commit();
      exec(c, "INSERT INTO accounts VALUES (12, 3)");
      c.commit();
      c.setAutoCommit(true);
      LiveReplication.markEnd(c);
    }
    Read r = read("malformed", null);
    assertThat(r.refused).isEqualTo(4);
    assertThat(r.envelopes).hasSize(2);
    assertThat(r.envelopes.get(0).getDdlEventsCount()).isZero();
    assertThat(r.envelopes.get(0).getChangesList())
        .extracting(ChangeRecord::getTotalOrder)
        .containsExactly(1L, 2L);
    assertThat(r.envelopes.get(1).getChangesCount()).isEqualTo(1);
  }

  /**
   * The owner's DDL, a member's that inherits the owner's privileges, and a member's under SET ROLE
   * are all captured by default; with {@code ddl.message.roles=app_owner} only the owner's and the
   * one under SET ROLE are, and the member's own is refused.
   */
  @Test
  void realDdlOfTheOwnerIsCapturedAndAnExplicitListIsHeld() throws Exception {
    createSlot("owner_default");
    createSlot("owner_listed");
    try (Connection o = connect("app_owner")) {
      exec(o, "ALTER TABLE accounts ADD COLUMN note text");
    }
    try (Connection m = connect("migrator")) {
      exec(m, "ALTER TABLE accounts ADD COLUMN note2 text");
      exec(m, "SET ROLE app_owner");
      exec(m, "ALTER TABLE accounts ADD COLUMN note3 text");
    }
    try (Connection c = connect("postgres")) {
      LiveReplication.markEnd(c);
    }

    Read byDefault = read("owner_default", null);
    assertThat(byDefault.refused).isZero();
    assertThat(ddl(byDefault))
        .extracting(DdlEvent::getStatement)
        .containsExactly(
            "ALTER TABLE accounts ADD COLUMN note text",
            "ALTER TABLE accounts ADD COLUMN note2 text",
            "ALTER TABLE accounts ADD COLUMN note3 text");
    assertThat(ddl(byDefault))
        .allSatisfy(d -> assertThat(d.getRelation().getTable()).isEqualTo("accounts"));

    Read listed = read("owner_listed", Set.of("app_owner"));
    assertThat(listed.refused).isEqualTo(1);
    assertThat(ddl(listed))
        .extracting(DdlEvent::getStatement)
        .containsExactly(
            "ALTER TABLE accounts ADD COLUMN note text",
            "ALTER TABLE accounts ADD COLUMN note3 text");
  }

  /**
   * A role with CREATE on the database (not the default) creates the schema trellara first, to own
   * the functions every DDL statement would run: the script refuses to install into it, and
   * installs nothing.
   */
  @Test
  void theScriptRefusesASchemaTrellaraOwnedByAnotherRole() throws Exception {
    try (Connection c = connect("postgres")) {
      exec(c, "CREATE DATABASE hijack");
      exec(c, "GRANT CREATE ON DATABASE hijack TO mallory");
    }
    try (Connection m = DriverManager.getConnection(postgres.getJdbcUrl("mallory", "hijack"))) {
      exec(m, "CREATE SCHEMA trellara");
    }
    try (Connection c = DriverManager.getConnection(postgres.getJdbcUrl("postgres", "hijack"))) {
      assertThatThrownBy(() -> exec(c, installScript()))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("schema trellara or a function in it is owned by mallory");
      try (var rs =
          c.createStatement().executeQuery("SELECT count(*) FROM pg_catalog.pg_event_trigger")) {
        rs.next();
        assertThat(rs.getLong(1)).isZero();
      }
    }
  }

  private record Read(List<TransactionEnvelope> envelopes, long refused) {}

  private static List<DdlEvent> ddl(Read r) {
    return r.envelopes.stream().flatMap(e -> e.getDdlEventsList().stream()).toList();
  }

  /**
   * Reads a slot as a task would: the publication's tables and the DDL roles resolved before
   * streaming ({@code roles} null: the default, the owners).
   */
  private Read read(String slot, Set<String> roles) throws Exception {
    CaptureSettings settings;
    try (Connection c = connect("postgres")) {
      var tables = PublishedTables.load(c, "accounts_pub");
      settings =
          CaptureSettings.defaults(spill)
              .withCapturedTables(roles == null ? tables : tables.withDdlRoles(roles));
    }
    EnvelopeCollector collector = new EnvelopeCollector();
    try (TransactionAssembler assembler =
        new TransactionAssembler(CaptureTestSupport.IDENTITY, settings, collector)) {
      LiveReplication.readSlot(postgres, slot, "accounts_pub", 2, assembler);
      return new Read(List.copyOf(collector.envelopes), assembler.ddlMessagesRefused());
    } finally {
      try (Connection c = connect("postgres")) {
        exec(c, "SELECT pg_drop_replication_slot('" + slot + "')");
      }
    }
  }

  private static void createSlot(String slot) throws SQLException {
    try (Connection c = connect("postgres")) {
      exec(c, "SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
    }
  }

  private static String installScript() throws Exception {
    try (InputStream in =
        DdlMessageAuthorshipIT.class.getResourceAsStream("/trellara-ddl-capture.sql")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static Connection connect(String role) throws SQLException {
    return DriverManager.getConnection(postgres.getJdbcUrl(role, "postgres"));
  }
}
