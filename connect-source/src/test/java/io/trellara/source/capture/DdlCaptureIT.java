package io.trellara.source.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.validation.ProtocolValidator;
import io.trellara.source.capture.CaptureTestSupport.EnvelopeCollector;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DDL event trigger of trellara-ddl-capture.sql end to end: installed (twice: it is idempotent) on an
 * embedded PostgreSQL 17, DDL and DML in one transaction, read through a pgoutput protocol 2 replication
 * stream, assembled and built into envelopes: the DDL events sit in order among the changes.
 */
class DdlCaptureIT {

  private static EmbeddedPostgres postgres;

  @TempDir
  Path spill;

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
    String script;
    try (InputStream in = DdlCaptureIT.class.getResourceAsStream("/trellara-ddl-capture.sql")) {
      script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
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
    try (TransactionAssembler assembler = new TransactionAssembler(CaptureTestSupport.IDENTITY,
        CaptureSettings.defaults(spill), collector)) {
      LiveReplication.readSlot(postgres, "trellara_it", "trellara_it", 2, assembler);
    }

    // the installation's own DDL ran before the slot existed: two envelopes, the DML+DDL one and the DROP
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
    assertThat(create.getStatement()).isEqualTo("CREATE TABLE item (id integer PRIMARY KEY, name text)");
    assertThat(create.getSearchPath()).isEqualTo("public");
    assertThat(tx.getDdlEvents(1).getCommandTag()).isEqualTo("ALTER TABLE");
    assertThat(tx.getDdlEvents(1).getObjectIdentity()).isEqualTo("public.item");
    assertThat(tx.getChanges(1).getAfter().getColumnsCount()).isEqualTo(3);
    assertThat(tx.getChanges(1).getAfter().getColumns(2).getTypeName()).isEqualTo("numeric(12,2)");
    assertThat(tx.getBeginLsn()).isNotEmpty();

    TransactionEnvelope drop = collector.envelopes.get(1);
    assertThat(drop.getChangesCount()).isZero();
    assertThat(drop.getDdlEventsCount()).isEqualTo(1);
    assertThat(drop.getDdlEvents(0).getCommandTag()).isEqualTo("DROP TABLE");
    assertThat(drop.getDdlEvents(0).getObjectIdentity()).isEmpty();
    assertThat(drop.getDdlEvents(0).getStatement()).isEqualTo("DROP TABLE item");
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
