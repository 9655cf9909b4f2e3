package io.trellara.source.capture;

import static io.trellara.source.capture.SyntheticStream.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.validation.ProtocolValidator;
import io.trellara.source.capture.CaptureTestSupport.EnvelopeCollector;
import io.trellara.source.pgoutput.PgOutputMessage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TransactionAssemblerTest {

  private static final long ORDERS = 16400;
  private static final long LOG = 16500;

  @TempDir Path spill;

  private EnvelopeCollector collector = new EnvelopeCollector();

  private TransactionAssembler assembler(long threshold) {
    collector = new EnvelopeCollector();
    return new TransactionAssembler(
        CaptureTestSupport.IDENTITY,
        CaptureSettings.defaults(spill).withSpillThresholdBytes(threshold),
        collector);
  }

  private static void feed(TransactionAssembler a, PgOutputMessage... messages) {
    for (PgOutputMessage m : messages) {
      a.accept(m, 0x100);
    }
  }

  private static List<String> ids(TransactionEnvelope e) {
    List<String> ids = new ArrayList<>();
    for (ChangeRecord c : e.getChangesList()) {
      ids.add((c.hasAfter() ? c.getAfter() : c.getBefore()).getColumns(0).getText());
    }
    return ids;
  }

  @Test
  void interleavedStreamedTransactionsDropExactlyTheAbortedSubtransaction() {
    for (long threshold : new long[] {1L << 20, 0, 700}) {
      try (TransactionAssembler a = assembler(threshold)) {
        feed(a, relation(0, ORDERS, "orders", 'd', "id:23:k", "note:25"));
        feed(
            a,
            streamStart(500, true),
            relation(500, ORDERS, "orders", 'd', "id:23:k", "note:25"),
            insert(500, ORDERS, "1", "a"),
            insert(501, ORDERS, "2", "sub-aborted"),
            streamStop());
        feed(
            a,
            streamStart(600, true),
            insert(600, ORDERS, "100", "other"),
            insert(601, ORDERS, "101", "other"),
            streamStop());
        feed(
            a,
            streamStart(500, false),
            insert(501, ORDERS, "3", "sub-aborted"),
            insert(502, ORDERS, "4", "kept"),
            ddl(500, CaptureTestSupport.VALID_DDL_JSON),
            streamStop());
        feed(a, streamAbort(500, 501), streamAbort(600, 601));
        assertThat(a.inFlightTransactions()).isEqualTo(2);
        feed(a, streamAbort(600, 600));
        assertThat(a.inFlightTransactions()).isEqualTo(1);
        feed(a, begin(0x5000, 700), insert(0, ORDERS, "7", "small"), commit(0x5000));
        feed(a, streamCommit(500, 0x6000));
        assertThat(a.idle()).isTrue();
        assertThat(a.memoryBytes()).isZero();
      }
      assertThat(collector.envelopes).as("threshold " + threshold).hasSize(2);
      TransactionEnvelope small = collector.envelopes.get(0);
      TransactionEnvelope big = collector.envelopes.get(1);
      ProtocolValidator.validateEnvelope(small);
      ProtocolValidator.validateEnvelope(big);
      assertThat(small.getTransactionId()).isEqualTo("700");
      assertThat(ids(small)).containsExactly("7");
      assertThat(big.getTransactionId()).isEqualTo("500");
      assertThat(big.getCommitLsn()).isEqualTo("0/6000");
      assertThat(ids(big)).containsExactly("1", "4");
      assertThat(big.getChangesList())
          .extracting(ChangeRecord::getTotalOrder)
          .containsExactly(1L, 2L);
      assertThat(big.getDdlEventsList()).extracting(DdlEvent::getTotalOrder).containsExactly(3L);
      assertThat(spill.toFile().list()).isEmpty();
    }
  }

  @Test
  void updateWithNullKeyInIdentifyingImageFailsClosedNamingRelationColumnAndLsn() {
    try (TransactionAssembler a = assembler(1 << 20)) {
      feed(a, relation(0, ORDERS, "orders", 'd', "id:23:k", "note:25"), begin(0x2000, 42));
      a.accept(update(0, ORDERS, 'K', new String[] {null, null}, "5", "x"), 0x1F00);
      assertThatThrownBy(() -> a.accept(commit(0x2000), 0x2000))
          .isInstanceOf(CaptureException.class)
          .hasMessageContaining("missing_key_column")
          .hasMessageContaining("public.orders")
          .hasMessageContaining("column id")
          .hasMessageContaining("0/1F00");
    }
  }

  @Test
  void unchangedToastKeyFailsClosedButUnchangedToastValueColumnIsFine() {
    try (TransactionAssembler a = assembler(1 << 20)) {
      feed(
          a,
          relation(0, ORDERS, "orders", 'd', "id:25:k", "note:25"),
          begin(0x2000, 42),
          update(0, ORDERS, (char) 0, null, "1", TOAST));
      feed(a, commit(0x2000));
      assertThat(collector.envelopes.get(0).getChanges(0).getAfter().getColumns(1).getState())
          .isEqualTo(ColumnState.COLUMN_STATE_UNCHANGED_TOAST);
      feed(a, begin(0x3000, 43), update(0, ORDERS, (char) 0, null, TOAST, "y"));
      assertThatThrownBy(() -> feed(a, commit(0x3000)))
          .isInstanceOf(CaptureException.class)
          .hasMessageContaining("key column 'id' is unchanged-TOAST");
    }
  }

  @Test
  void deleteFromRelationWithoutKeyAndNotFullFailsClosed() {
    try (TransactionAssembler a = assembler(1 << 20)) {
      feed(
          a,
          relation(0, LOG, "log", 'n', "msg:25"),
          begin(0x2000, 42),
          delete(0, LOG, 'O', "gone"));
      assertThatThrownBy(() -> feed(a, commit(0x2000)))
          .isInstanceOf(CaptureException.class)
          .hasMessageContaining("public.log")
          .hasMessageContaining("no key column and is not REPLICA IDENTITY FULL");
    }
  }

  @Test
  void spilledChangesKeepTheSchemaVersionInForceWhenTheyArrived() {
    try (TransactionAssembler a = assembler(0)) {
      feed(
          a,
          streamStart(500, true),
          relation(500, ORDERS, "orders", 'd', "id:23:k", "note:25"),
          insert(500, ORDERS, "1", "old shape"),
          streamStop());
      // another transaction changes the table's shape before 500 commits
      feed(
          a,
          begin(0x3000, 600),
          relation(0, ORDERS, "orders", 'd', "id:23:k", "note:25", "extra:23"),
          insert(0, ORDERS, "2", "new shape", "9"),
          commit(0x3000));
      feed(a, streamCommit(500, 0x4000));
    }
    TransactionEnvelope later = collector.envelopes.get(1);
    assertThat(later.getChanges(0).getAfter().getColumnsCount()).isEqualTo(2);
    assertThat(later.getSchemaVersions(0).getColumnsCount()).isEqualTo(2);
    assertThat(collector.envelopes.get(0).getSchemaVersions(0).getFingerprint())
        .isNotEqualTo(later.getSchemaVersions(0).getFingerprint());
  }

  @Test
  void emptyCommitsAreReportedSeparatelyAndAbortedSpillFilesAreDeleted() {
    List<Long> empty = new ArrayList<>();
    try (TransactionAssembler a = assembler(0)) {
      feed(a, relation(0, ORDERS, "orders", 'd', "id:23:k", "note:25"));
      feed(a, streamStart(500, true), insert(501, ORDERS, "1", "x"), streamStop());
      assertThat(spill.toFile().list()).hasSize(1);
      feed(a, streamAbort(500, 501), streamCommit(500, 0x4000));
      feed(a, streamStart(510, true), insert(510, ORDERS, "1", "x"), streamStop());
      assertThat(spill.toFile().list()).hasSize(1);
      feed(a, streamAbort(510, 510));
      assertThat(spill.toFile().list()).isEmpty();
      empty.addAll(collector.emptyCommits);
    }
    assertThat(empty).containsExactly(500L);
    assertThat(collector.envelopes).isEmpty();
  }

  @Test
  void transactionIsUsableOnlyDuringItsHandler() {
    List<CapturedTransaction> kept = new ArrayList<>();
    try (TransactionAssembler a =
        new TransactionAssembler(
            CaptureTestSupport.IDENTITY, CaptureSettings.defaults(spill), kept::add)) {
      feed(
          a,
          relation(0, ORDERS, "orders", 'd', "id:23:k", "note:25"),
          begin(0x2000, 42),
          insert(0, ORDERS, "1", "x"),
          commit(0x2000));
    }
    CapturedTransaction tx = kept.get(0);
    assertThat(tx.eventCount()).isEqualTo(1);
    assertThat(tx.commitLsnText()).isEqualTo("0/2000");
    assertThat(tx.beginLsn()).isEqualTo(0x100);
    assertThatThrownBy(
            () ->
                tx.forEachEvent(
                    new CaptureEventSink() {
                      @Override
                      public void onChange(ChangeRecord change, RelationSchema relation) {}

                      @Override
                      public void onDdl(DdlEvent ddl) {}
                    }))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void changeOutsideATransactionIsAStreamOrderViolation() {
    try (TransactionAssembler a = assembler(1 << 20)) {
      feed(a, relation(0, ORDERS, "orders", 'd', "id:23:k", "note:25"));
      assertThatThrownBy(() -> feed(a, insert(0, ORDERS, "1", "x")))
          .isInstanceOf(CaptureException.class)
          .hasMessageContaining("stream_order");
      assertThatThrownBy(() -> feed(a, insert(900, ORDERS, "1", "x")))
          .isInstanceOf(CaptureException.class)
          .hasMessageContaining("outside a stream block");
    }
  }

  /**
   * 1,000,000 inserts in one transaction through a 256 KiB budget: memory stays bounded, nothing is
   * lost.
   */
  @Test
  void millionRowTransactionStaysWithinTheMemoryBudget() {
    long budget = 256 * 1024;
    long[] counts = new long[2];
    CommittedTransactionHandler counting =
        tx -> {
          counts[1] = tx.eventCount();
          tx.forEachEvent(
              new CaptureEventSink() {
                long expected = 1;

                @Override
                public void onChange(ChangeRecord change, RelationSchema relation) {
                  if (change.getTotalOrder() != expected++) {
                    throw new AssertionError("total_order " + change.getTotalOrder());
                  }
                  counts[0]++;
                }

                @Override
                public void onDdl(DdlEvent ddl) {
                  throw new AssertionError("no DDL expected");
                }
              });
        };
    long peak;
    long spilledTransactions;
    try (TransactionAssembler a =
        new TransactionAssembler(
            CaptureTestSupport.IDENTITY,
            CaptureSettings.defaults(spill).withSpillThresholdBytes(budget),
            counting)) {
      feed(a, relation(0, ORDERS, "orders", 'd', "id:23:k", "note:25"), streamStart(900, true));
      PgOutputMessage row =
          insert(900, ORDERS, "123456", "a payload of some forty bytes, more or less");
      for (int i = 0; i < 1_000_000; i++) {
        a.accept(row, 0x100 + i);
        if (i % 100_000 == 0) {
          assertThat(a.memoryBytes()).isLessThanOrEqualTo(budget);
        }
      }
      feed(a, streamStop(), streamCommit(900, 0x9000_0000L));
      peak = a.peakMemoryBytes();
      spilledTransactions = a.spilledTransactions();
    }
    assertThat(counts[0]).isEqualTo(1_000_000);
    assertThat(counts[1]).isEqualTo(1_000_000);
    assertThat(peak).isLessThanOrEqualTo(budget);
    assertThat(spilledTransactions).isEqualTo(1);
    assertThat(spill.toFile().list()).isEmpty();
  }
}
