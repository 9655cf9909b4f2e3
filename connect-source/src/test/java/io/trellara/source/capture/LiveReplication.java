package io.trellara.source.capture;

import io.trellara.source.pgoutput.PgOutputMessage;
import io.trellara.source.pgoutput.PgOutputMessage.LogicalMessage;
import io.trellara.source.pgoutput.PgOutputParser;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.PGReplicationStream;
import org.postgresql.replication.fluent.logical.ChainedLogicalStreamBuilder;

/** Embedded PostgreSQL 17 helpers for the capture ITs: SQL, and a slot read into an assembler. */
final class LiveReplication {

  static final String END_PREFIX = "trellara.it.end";

  private LiveReplication() {}

  static EmbeddedPostgres start() throws Exception {
    return EmbeddedPostgres.builder()
        .setServerConfig("wal_level", "logical")
        .setServerConfig("max_replication_slots", "8")
        .setServerConfig("max_wal_senders", "8")
        .setServerConfig("logical_decoding_work_mem", "64kB")
        .setServerConfig("timezone", "Pacific/Chatham")
        .start();
  }

  static Connection connect(EmbeddedPostgres pg) throws SQLException {
    return DriverManager.getConnection(pg.getJdbcUrl("postgres", "postgres"));
  }

  static void exec(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /** Marks the end of what a test wrote: a non-transactional message {@link #readSlot} stops at. */
  static void markEnd(Connection c) throws SQLException {
    exec(c, "SELECT pg_logical_emit_message(false, '" + END_PREFIX + "', 'end')");
  }

  /** Streams a slot into the assembler (raw bytes and real WAL positions) until the end marker. */
  static void readSlot(
      EmbeddedPostgres pg,
      String slot,
      String publication,
      int protocolVersion,
      TransactionAssembler assembler)
      throws SQLException {
    Properties props = new Properties();
    PGProperty.USER.set(props, "postgres");
    PGProperty.ASSUME_MIN_SERVER_VERSION.set(props, "9.4");
    PGProperty.REPLICATION.set(props, "database");
    PGProperty.PREFER_QUERY_MODE.set(props, "simple");
    try (Connection replication =
        DriverManager.getConnection(pg.getJdbcUrl("postgres", "postgres"), props)) {
      ChainedLogicalStreamBuilder builder =
          replication
              .unwrap(PGConnection.class)
              .getReplicationAPI()
              .replicationStream()
              .logical()
              .withSlotName(slot)
              .withSlotOption("proto_version", String.valueOf(protocolVersion))
              .withSlotOption("messages", "true")
              .withSlotOption("publication_names", publication)
              .withStatusInterval(1, TimeUnit.SECONDS);
      if (protocolVersion >= 2) {
        builder = builder.withSlotOption("streaming", "on");
      }
      try (PGReplicationStream stream = builder.start()) {
        PgOutputParser parser = new PgOutputParser(protocolVersion);
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline) {
          ByteBuffer buffer = stream.readPending();
          if (buffer == null) {
            LockSupport.parkNanos(2_000_000L);
            continue;
          }
          PgOutputMessage m = parser.parse(buffer);
          if (m instanceof LogicalMessage l
              && !l.transactional()
              && l.prefix().equals(END_PREFIX)) {
            return;
          }
          assembler.accept(m, buffer, stream.getLastReceiveLSN().asLong());
        }
        throw new AssertionError("no end marker on slot " + slot + " within 120 s");
      }
    }
  }
}
