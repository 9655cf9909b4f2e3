package io.trellara.source.capture;

import static io.trellara.source.capture.LiveReplication.exec;
import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.validation.ProtocolValidator;
import io.trellara.source.capture.CaptureTestSupport.EnvelopeCollector;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live server: a transaction larger than logical_decoding_work_mem (64 kB) with a rolled-back
 * savepoint, while a concurrent streamed transaction (with its own rolled-back savepoint) aborts.
 * Read through a protocol 2 streaming slot and a protocol 1 slot, each with a 32 KiB spill budget:
 * both yield one envelope with exactly the committed changes, identical apart from the
 * xid-dependent fields.
 */
class StreamedCaptureIT {

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
  void streamedAndProtocol1CaptureYieldIdenticalCommittedChanges() throws Exception {
    try (Connection a = LiveReplication.connect(postgres);
        Connection b = LiveReplication.connect(postgres)) {
      exec(a, "CREATE TABLE bulk (id integer PRIMARY KEY, batch text NOT NULL, payload text)");
      exec(a, "CREATE PUBLICATION bulk_pub FOR TABLE bulk");
      exec(a, "SELECT pg_create_logical_replication_slot('bulk_p2', 'pgoutput')");
      exec(a, "SELECT pg_create_logical_replication_slot('bulk_p1', 'pgoutput')");
      exec(a, "BEGIN; " + insert(1, 1000, "A"));
      exec(b, "BEGIN; " + insert(100_001, 100_800, "B"));
      exec(a, "SAVEPOINT sp1; " + insert(1001, 1500, "X"));
      exec(b, "SAVEPOINT sb1; " + insert(100_801, 101_200, "Y"));
      exec(a, "ROLLBACK TO SAVEPOINT sp1");
      exec(b, "ROLLBACK TO SAVEPOINT sb1");
      exec(
          a,
          "UPDATE bulk SET payload = 'updated' WHERE id <= 10; DELETE FROM bulk WHERE id > 990 AND id <= 1000;");
      exec(b, insert(101_201, 101_400, "B") + " ROLLBACK;");
      exec(a, insert(1501, 3000, "A") + " COMMIT;");
      LiveReplication.markEnd(a);
    }

    TransactionEnvelope streamed = capture("bulk_p2", 2);
    TransactionEnvelope protocol1 = capture("bulk_p1", 1);

    assertThat(CaptureTestSupport.withoutTransactionFields(streamed))
        .isEqualTo(CaptureTestSupport.withoutTransactionFields(protocol1));
    assertThat(streamed.getChangesCount()).isEqualTo(1000 + 10 + 10 + 1500);
    Set<Integer> inserted = new HashSet<>();
    for (ChangeRecord c : streamed.getChangesList()) {
      if (c.getOperation() == Operation.OPERATION_INSERT) {
        assertThat(c.getAfter().getColumns(1).getText()).isEqualTo("A");
        inserted.add(Integer.parseInt(c.getAfter().getColumns(0).getText()));
      }
    }
    assertThat(inserted).hasSize(2500).allMatch(id -> id <= 1000 || (id > 1500 && id <= 3000));
    assertThat(streamed.getBeginLsn()).isNotEmpty();
  }

  private TransactionEnvelope capture(String slot, int protocolVersion) throws Exception {
    EnvelopeCollector collector = new EnvelopeCollector();
    long spilled;
    try (TransactionAssembler assembler =
        new TransactionAssembler(
            CaptureTestSupport.IDENTITY,
            CaptureSettings.defaults(spill).withSpillThresholdBytes(32 * 1024),
            collector)) {
      LiveReplication.readSlot(postgres, slot, "bulk_pub", protocolVersion, assembler);
      assertThat(assembler.idle()).isTrue();
      assertThat(assembler.peakMemoryBytes()).isLessThanOrEqualTo(32 * 1024);
      spilled = assembler.spilledTransactions();
    }
    assertThat(spilled).isPositive();
    assertThat(collector.envelopes).as(slot).hasSize(1);
    assertThat(spill.toFile().list()).isEmpty();
    TransactionEnvelope e = collector.envelopes.get(0);
    ProtocolValidator.validateEnvelope(e);
    return e;
  }

  private static String insert(int from, int to, String batch) {
    return "INSERT INTO bulk SELECT g, '"
        + batch
        + "', repeat('"
        + batch
        + "', 60) || g"
        + " FROM generate_series("
        + from
        + ", "
        + to
        + ") g;";
  }
}
