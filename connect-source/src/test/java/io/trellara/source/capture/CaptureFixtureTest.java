package io.trellara.source.capture;

import static io.trellara.source.capture.CaptureTestSupport.load;
import static io.trellara.source.capture.CaptureTestSupport.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.protocol.v1.RowImage;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.validation.ProtocolValidator;
import io.trellara.source.capture.CaptureTestSupport.EnvelopeCollector;
import io.trellara.source.capture.CaptureTestSupport.Fixture;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The capture core driven by pgoutput bytes captured from PostgreSQL 17 (see the pgoutput
 * fixtures).
 */
class CaptureFixtureTest {

  @TempDir Path spill;

  private static TransactionEnvelope only(EnvelopeCollector c) {
    assertThat(c.envelopes).hasSize(1);
    TransactionEnvelope e = c.envelopes.get(0);
    ProtocolValidator.validateEnvelope(e);
    TrellaraCodec.decodeEnvelope(TrellaraCodec.encode(e).bytes());
    return e;
  }

  private static ColumnValue column(
      TransactionEnvelope e, ChangeRecord c, RowImage image, String name) {
    return Rows.column(e, c, image, name);
  }

  @Test
  void multiTableDmlBecomesExactlyOneEnvelopeWithOrdersImagesAndTruncate() {
    TransactionEnvelope e = only(run(load("multi-table-dml", 2), spill));

    assertThat(e.getChangesList())
        .extracting(ChangeRecord::getOperation)
        .containsExactly(
            Operation.OPERATION_INSERT,
            Operation.OPERATION_INSERT,
            Operation.OPERATION_INSERT,
            Operation.OPERATION_UPDATE,
            Operation.OPERATION_DELETE,
            Operation.OPERATION_TRUNCATE);
    assertThat(e.getChangesList())
        .extracting(ChangeRecord::getTotalOrder)
        .containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
    assertThat(e.getChangesList())
        .extracting(c -> c.getRelation().getTable())
        .containsExactly("account", "account", "orders", "account", "orders", "scratch");
    assertThat(e.getChangesList())
        .extracting(ChangeRecord::getTableOrder)
        .containsExactly(1L, 2L, 1L, 3L, 2L, 1L);
    assertThat(e.getChangesList()).extracting(ChangeRecord::getPartitionOrder).containsOnly(0L);
    assertThat(e.getChangesList())
        .extracting(ChangeRecord::getIdempotencyKey)
        .first()
        .isEqualTo("pg-test:" + e.getCommitLsn() + ":" + e.getTransactionId() + ":1");
    assertThat(e.getSchemaVersionsList())
        .extracting(s -> s.getRelation().getTable())
        .containsExactly("account", "orders", "scratch");
    assertThat(e.getSchemaVersionsList())
        .allSatisfy(s -> assertThat(s.getFingerprint()).matches("[0-9a-f]{16}"));

    ChangeRecord first = e.getChanges(0);
    assertThat(first.hasBefore()).isFalse();
    assertThat(first.getRelation().getSourceOid())
        .as("the OID hint travels in the schema version")
        .isZero();
    assertThat(Rows.definition(e, first, "id").getKey()).isTrue();
    assertThat(Rows.definition(e, first, "balance").getTypeName()).isEqualTo("numeric(12,2)");
    assertThat(column(e, first, first.getAfter(), "balance").getText()).isEqualTo("1234.50");
    assertThat(Rows.definition(e, first, "tags").getTypeName()).isEqualTo("text[]");
    assertThat(column(e, first, first.getAfter(), "photo").getText()).isEqualTo("\\x00ff10");
    assertThat(column(e, e.getChanges(1), e.getChanges(1).getAfter(), "balance").getState())
        .isEqualTo(ColumnState.COLUMN_STATE_NULL);
    assertThat(Rows.definition(e, e.getChanges(2), "note").getTypeName())
        .isEqualTo("character varying(200)");
    assertThat(e.getChangesList()).extracting(ChangeRecord::getSchemaFingerprint).containsOnly("");

    ChangeRecord update = e.getChanges(3);
    assertThat(update.hasBefore()).as("key unchanged: no old tuple").isFalse();
    assertThat(column(e, update, update.getAfter(), "balance").getText()).isEqualTo("1134.55");

    ChangeRecord delete = e.getChanges(4);
    assertThat(delete.getBefore().getColumnsCount())
        .as("positional: every column")
        .isEqualTo(Rows.schema(e, delete).getColumnsCount());
    assertThat(column(e, delete, delete.getBefore(), "id").getText()).isEqualTo("9");
    assertThat(delete.getBefore().getColumnsList())
        .extracting(ColumnValue::getState)
        .as("only the key was sent")
        .containsOnlyOnce(ColumnState.COLUMN_STATE_VALUE);
    assertThat(delete.hasAfter()).isFalse();

    ChangeRecord truncate = e.getChanges(5);
    assertThat(truncate.getTruncate().getRelationsList())
        .extracting(r -> r.getTable())
        .containsExactly("scratch");
    assertThat(truncate.getTruncate().getCascade()).isTrue();
    assertThat(truncate.getTruncate().getRestartIdentity()).isTrue();
    assertThat(truncate.hasBefore() || truncate.hasAfter()).isFalse();
  }

  @Test
  void unchangedToastColumnIsMarkedUnchangedNeverNull() {
    TransactionEnvelope e = only(run(load("toast-unchanged", 2), spill));
    ChangeRecord update = e.getChanges(0);
    assertThat(update.getOperation()).isEqualTo(Operation.OPERATION_UPDATE);
    assertThat(column(e, update, update.getAfter(), "body").getState())
        .isEqualTo(ColumnState.COLUMN_STATE_UNCHANGED_TOAST);
    assertThat(column(e, update, update.getAfter(), "body").getText()).isEmpty();
    assertThat(column(e, update, update.getAfter(), "title").getText()).isEqualTo("v2");
  }

  @Test
  void keyAndFullOldTuplesBecomeBeforeImages() {
    EnvelopeCollector c = run(load("old-tuples", 2), spill);
    assertThat(c.envelopes).hasSize(2);
    c.envelopes.forEach(ProtocolValidator::validateEnvelope);

    TransactionEnvelope keyed = c.envelopes.get(0);
    ChangeRecord keyChange = keyed.getChanges(0);
    assertThat(column(keyed, keyChange, keyChange.getBefore(), "id").getText()).isEqualTo("30");
    assertThat(keyChange.getBefore().getColumnsList())
        .extracting(ColumnValue::getState)
        .as("non-key: not sent")
        .containsOnlyOnce(ColumnState.COLUMN_STATE_VALUE)
        .contains(ColumnState.COLUMN_STATE_UNCHANGED_TOAST)
        .doesNotContain(ColumnState.COLUMN_STATE_NULL);
    assertThat(column(keyed, keyChange, keyChange.getAfter(), "id").getText()).isEqualTo("32");
    assertThat(keyChange.getAfter().getColumnsCount()).isEqualTo(9);
    assertThat(keyChange.getBefore().getColumnsCount()).isEqualTo(9);
    ChangeRecord keyDelete = keyed.getChanges(1);
    assertThat(column(keyed, keyDelete, keyDelete.getBefore(), "id").getText()).isEqualTo("31");
    assertThat(keyDelete.getBefore().getColumnsList())
        .extracting(ColumnValue::getText)
        .filteredOn(t -> !t.isEmpty())
        .containsExactly("31");

    TransactionEnvelope full = c.envelopes.get(1);
    ChangeRecord fullUpdate = full.getChanges(0);
    assertThat(fullUpdate.getReplicaIdentity()).isEqualTo(ReplicaIdentity.REPLICA_IDENTITY_FULL);
    assertThat(fullUpdate.getBefore().getColumnsList())
        .extracting(ColumnValue::getText)
        .containsExactly("1", "30", "5.00", "m1");
    assertThat(column(full, fullUpdate, fullUpdate.getAfter(), "memo").getText())
        .isEqualTo("changed");
    assertThat(full.getChanges(1).getBefore().getColumnsList())
        .extracting(ColumnValue::getText)
        .containsExactly("2", "31", "6.00", "m2");
    assertThat(full.getSchemaVersions(0).getColumnsList())
        .as("FULL has no key columns, the old row identifies")
        .noneMatch(d -> d.getKey());
  }

  @Test
  void streamedProtocol2AndLargeProtocol1YieldIdenticalCommittedChanges() {
    TransactionEnvelope streamed =
        only(
            run(
                load("streamed-proto2", 2),
                spill,
                1L << 24,
                false,
                CaptureTestSupport.validDdlContent()));
    TransactionEnvelope large =
        only(
            run(
                load("large-proto1", 1),
                spill,
                1L << 24,
                false,
                CaptureTestSupport.validDdlContent()));

    assertThat(CaptureTestSupport.withoutTransactionFields(streamed))
        .isEqualTo(CaptureTestSupport.withoutTransactionFields(large));
    assertThat(CaptureTestSupport.ddlWithoutTransactionFields(streamed))
        .isEqualTo(CaptureTestSupport.ddlWithoutTransactionFields(large));
    assertThat(streamed.getSchemaVersionsList()).isEqualTo(large.getSchemaVersionsList());
    assertThat(streamed.getChangesCount()).isEqualTo(2501);
    assertThat(streamed.getDdlEventsCount()).isEqualTo(1);
    assertThat(streamed.getDdlEvents(0).getTotalOrder()).isEqualTo(1001);
    assertThat(streamed.getChanges(1000).getOperation()).isEqualTo(Operation.OPERATION_TRUNCATE);
  }

  @Test
  void abortedTransactionAndRolledBackSavepointsAreAbsent() {
    EnvelopeCollector c =
        run(
            load("streamed-proto2", 2),
            spill,
            1L << 24,
            false,
            CaptureTestSupport.validDdlContent());
    TransactionEnvelope e = only(c);
    Set<Integer> ids = new HashSet<>();
    for (ChangeRecord change : e.getChangesList()) {
      if (change.getOperation() == Operation.OPERATION_INSERT) {
        assertThat(column(e, change, change.getAfter(), "batch").getText()).isEqualTo("A");
        ids.add(Integer.parseInt(column(e, change, change.getAfter(), "id").getText()));
      }
    }
    Set<Integer> expected = new HashSet<>();
    for (int i = 1; i <= 3000; i++) {
      if (i <= 1000 || i > 1500) {
        expected.add(i);
      }
    }
    assertThat(ids).isEqualTo(expected);
  }

  @Test
  void ddlMessagesBecomeDdlEventsInOrderAndNonTransactionalMessagesAreIgnored() {
    TransactionEnvelope e =
        only(
            run(
                load("logical-messages", 2),
                spill,
                1L << 24,
                false,
                CaptureTestSupport.validDdlContent()));
    assertThat(e.getChangesList()).extracting(ChangeRecord::getTotalOrder).containsExactly(1L, 3L);
    assertThat(e.getDdlEventsCount()).isEqualTo(1);
    assertThat(e.getDdlEvents(0).getTotalOrder()).isEqualTo(2);
    assertThat(e.getDdlEvents(0).getCommandTag()).isEqualTo("ALTER TABLE");
    assertThat(e.getDdlEvents(0).getSearchPath()).isEqualTo("\"$user\", public");
    assertThat(e.getDdlEvents(0).getTransactionId()).isEqualTo(e.getTransactionId());
  }

  /**
   * The recorded message is what a direct pg_logical_emit_message call writes, not the trigger's
   * JSON (no command_tag): refused and skipped, never fatal; both inserts around it are published
   * in one envelope, numbered without a gap.
   */
  @Test
  void ddlMessageWithoutCommandTagIsRefusedAndItsTransactionStillPublished() {
    TransactionEnvelope e = only(run(load("logical-messages", 2), spill));
    assertThat(e.getDdlEventsCount()).isZero();
    assertThat(e.getChangesList()).extracting(ChangeRecord::getTotalOrder).containsExactly(1L, 2L);
    assertThat(e.getChangesList())
        .extracting(c -> column(e, c, c.getAfter(), "note").getText())
        .containsExactly("before ddl", "after ddl");
  }

  @Test
  void userTypesAreNamedFromTypeMessagesAndOriginIsIgnored() {
    EnvelopeCollector c = run(load("type-and-origin", 2), spill);
    assertThat(c.envelopes).hasSize(2);
    c.envelopes.forEach(ProtocolValidator::validateEnvelope);
    TransactionEnvelope e = c.envelopes.get(0);
    ChangeRecord first = e.getChanges(0);
    assertThat(Rows.definition(e, first, "mood").getTypeName()).isEqualTo("public.mood");
    assertThat(column(e, first, first.getAfter(), "mood").getText()).isEqualTo("happy");
    // PostgreSQL announces a domain with its base type's name
    assertThat(Rows.definition(e, first, "score").getTypeName()).isEqualTo("int4");
    TransactionEnvelope second = c.envelopes.get(1);
    assertThat(
            column(second, second.getChanges(1), second.getChanges(1).getAfter(), "mood")
                .getState())
        .isEqualTo(ColumnState.COLUMN_STATE_NULL);
  }

  @Test
  void binaryValuesTravelAsBinary() {
    TransactionEnvelope e = only(run(load("binary-proto2", 2), spill));
    RowImage after = e.getChanges(0).getAfter();
    ColumnValue id = column(e, e.getChanges(0), after, "id");
    assertThat(id.getState()).isEqualTo(ColumnState.COLUMN_STATE_VALUE);
    assertThat(id.getText()).isEmpty();
    assertThat(id.getBinary().toByteArray()).containsExactly(0, 0, 0, 0, 0, 0, 0, 80);
    assertThat(column(e, e.getChanges(0), after, "owner").getBinary().toStringUtf8())
        .isEqualTo("erin");
  }

  @Test
  void rawBytesAndReencodedMessagesSpillToTheSameEnvelopes() {
    for (String[] f :
        new String[][] {
          {"multi-table-dml", "2"},
          {"streamed-proto2", "2"},
          {"large-proto1", "1"},
          {"old-tuples", "2"},
          {"toast-unchanged", "2"},
          {"binary-proto2", "2"},
          {"logical-messages", "2"}
        }) {
      Fixture fixture = load(f[0], Integer.parseInt(f[1]));
      UnaryOperator<io.trellara.source.pgoutput.PgOutputMessage> ddl =
          CaptureTestSupport.validDdlContent();
      EnvelopeCollector memory = run(fixture, spill, 1L << 30, false, ddl);
      EnvelopeCollector spilledRaw = run(fixture, spill, 0, true, ddl);
      EnvelopeCollector spilledEncoded = run(fixture, spill, 0, false, ddl);
      EnvelopeCollector smallBudget = run(fixture, spill, 4096, true, ddl);
      assertThat(memory.spilled).as(f[0]).containsOnly(false);
      assertThat(spilledRaw.spilled).as(f[0]).containsOnly(true);
      assertThat(spilledRaw.envelopes).as(f[0]).isEqualTo(memory.envelopes);
      assertThat(spilledEncoded.envelopes).as(f[0]).isEqualTo(memory.envelopes);
      assertThat(smallBudget.envelopes).as(f[0]).isEqualTo(memory.envelopes);
      assertThat(spill.toFile().list()).as("spill files removed after " + f[0]).isEmpty();
    }
  }

  @Test
  void envelopeAboveTheMaximumIsRefusedWithAdvice() {
    Fixture f = load("large-proto1", 1);
    EnvelopeCollector tooSmall = new EnvelopeCollector(64 * 1024);
    List<Exception> thrown = new ArrayList<>();
    try (TransactionAssembler a =
        new TransactionAssembler(
            CaptureTestSupport.IDENTITY, CaptureSettings.defaults(spill), tooSmall)) {
      for (var m : f.parsed()) {
        try {
          a.accept(CaptureTestSupport.validDdlContent().apply(m), 0);
        } catch (EnvelopeTooLargeException e) {
          thrown.add(e);
        }
      }
    }
    assertThat(thrown).hasSize(1);
    assertThat(thrown.get(0)).hasMessageContaining("dataset.strict_chunking.max_changes_per_chunk");
    assertThat(((EnvelopeTooLargeException) thrown.get(0)).maxBytes()).isEqualTo(64 * 1024);
    assertThat(spill.toFile().list()).isEmpty();
  }
}
