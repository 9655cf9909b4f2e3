package io.trellara.source.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.source.pgoutput.PgOutputMessage;
import io.trellara.source.pgoutput.PgOutputParser;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestServers;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link PublicationReconciler} on a real server: what the start adds and drops, the record it
 * keeps in the publication's comment (a table added by hand stays), the {@code trellara.signal}
 * message in the ALTER's transaction, a start refused (and nothing altered) while PUBLIC may write
 * logical messages, and a FOR ALL TABLES publication left alone.
 */
@EitherPlatform
class PublicationReconcilerIT {
  private static TestServers.Postgres pg;
  private static PostgresDatabase db;
  private static PgEndpoint endpoint;

  @BeforeAll
  static void start() {
    pg = TestServers.current().postgres("reconcile").start();
    db = pg.createDatabase("reconcile");
    db.execute(
        "CREATE TABLE a (id int PRIMARY KEY)",
        "CREATE TABLE b (id int PRIMARY KEY)",
        "CREATE TABLE \"We ird\" (id int PRIMARY KEY)",
        "CREATE TABLE beat (id int PRIMARY KEY)",
        "CREATE PUBLICATION rec FOR TABLE a, b",
        "CREATE PUBLICATION everything FOR ALL TABLES");
    endpoint =
        new PgEndpoint(
            pg.host(), pg.port(), db.name(), pg.user(), pg.password(), "disable", "", "", "", "");
  }

  @AfterAll
  static void stop() {
    if (pg != null) {
      pg.close();
    }
  }

  private static SourceDatabase source(String publication, String... tables) {
    return new SourceDatabase(
        endpoint, "slot", publication, true, List.of(tables), false, false, null, Set.of());
  }

  private static Set<String> published(String publication) {
    Set<String> out = new java.util.TreeSet<>();
    for (List<Object> r :
        db.query(
            "SELECT schemaname || '.' || tablename FROM pg_publication_tables WHERE pubname = '"
                + publication
                + "'")) {
      out.add((String) r.get(0));
    }
    return out;
  }

  /** Grants or revokes EXECUTE on every pg_logical_emit_message (3 arguments, or 4 from 17 on). */
  private static void emitters(String verb, String preposition) {
    for (List<Object> r :
        db.query(
            "SELECT p.oid::regprocedure::text FROM pg_proc p"
                + " WHERE p.proname = 'pg_logical_emit_message'"
                + " AND p.pronamespace = 'pg_catalog'::regnamespace")) {
      db.execute(
          verb + " EXECUTE ON FUNCTION pg_catalog." + r.get(0) + " " + preposition + " PUBLIC");
    }
  }

  @Test
  void addsDropsOnlyWhatItRecordedAndSignalsInTheSameTransaction() throws Exception {
    emitters("REVOKE", "FROM");
    // the first start records the list and drops nothing
    assertThat(
            PublicationReconciler.reconcile(source("rec", "public.a", "public.b"), true, "x")
                .empty())
        .isTrue();
    assertThat(
            db.query(
                    "SELECT obj_description(oid, 'pg_publication') FROM pg_publication"
                        + " WHERE pubname = 'rec'")
                .get(0)
                .get(0))
        .isEqualTo(PublicationReconciler.COMMENT_MARK + "\n\"public\".\"a\"\n\"public\".\"b\"");
    db.execute(
        "ALTER PUBLICATION rec ADD TABLE beat",
        "SELECT pg_create_logical_replication_slot('rec_peek', 'pgoutput')");

    PublicationReconciler.Plan plan =
        PublicationReconciler.reconcile(
            source("rec", "public.a", "public.We ird"), true, "include-7");
    assertThat(plan.describe()).isEqualTo("added [public.We ird], removed [public.b]");
    assertThat(published("rec"))
        .as("b dropped; beat, added by hand, stays")
        .containsExactly("public.We ird", "public.a", "public.beat");

    List<PgOutputMessage> decoded = new ArrayList<>();
    PgOutputParser parser = new PgOutputParser(1);
    try (Connection c = db.connect();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT data FROM pg_logical_slot_peek_binary_changes('rec_peek', NULL, NULL,"
                    + " 'proto_version', '1', 'publication_names', 'rec', 'messages', 'true')");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        decoded.add(parser.parse(ByteBuffer.wrap(rs.getBytes(1))));
      }
    }
    PgOutputMessage.LogicalMessage m =
        decoded.stream()
            .filter(PgOutputMessage.LogicalMessage.class::isInstance)
            .map(PgOutputMessage.LogicalMessage.class::cast)
            .filter(x -> x.prefix().equals(PublicationReconciler.SIGNAL_PREFIX))
            .findFirst()
            .orElseThrow();
    assertThat(m.transactional()).isTrue();
    assertThat(new String(m.content(), StandardCharsets.UTF_8))
        .isEqualTo("added-tables include-7\n\"public\".\"We ird\"");
    assertThat(decoded.get(0)).as("inside a transaction").isInstanceOf(PgOutputMessage.Begin.class);
    db.execute("SELECT pg_drop_replication_slot('rec_peek')");
  }

  @Test
  void refusesToAddWhilePublicMayWriteLogicalMessagesAndLeavesAllTablesAlone() throws Exception {
    db.execute("CREATE PUBLICATION open_pub FOR TABLE a");
    emitters("GRANT", "TO");
    try {
      assertThatThrownBy(
              () ->
                  PublicationReconciler.reconcile(
                      source("open_pub", "public.a", "public.b"), true, "y"))
          .isInstanceOf(PublicationReconciler.UntrustedSignalException.class)
          .hasMessageContaining("REVOKE EXECUTE");
      assertThat(published("open_pub")).as("nothing altered").containsExactly("public.a");
      // an initial snapshot reads the added table anyway: no message, nothing to trust
      PublicationReconciler.reconcile(source("open_pub", "public.a", "public.b"), false, "y");
      assertThat(published("open_pub")).containsExactly("public.a", "public.b");
    } finally {
      emitters("REVOKE", "FROM");
    }
    assertThat(PublicationReconciler.reconcile(source("everything", "public.a"), true, "z").empty())
        .isTrue();
    assertThat(published("everything")).contains("public.b", "public.beat");
  }
}
