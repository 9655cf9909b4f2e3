package io.trellara.source.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnDefinition;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.source.capture.CaptureEventSink;
import io.trellara.source.capture.RelationSchema;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The snapshot's COPY rows as the inserts of the snapshot transaction. */
class SnapshotEventsTest {
  private static final long CONSISTENT_POINT = 0x1_6B37_4D48L;
  private final List<ChangeRecord> changes = new ArrayList<>();
  private final List<RelationSchema> relations = new ArrayList<>();
  private final SnapshotEvents events =
      new SnapshotEvents(
          "src",
          CONSISTENT_POINT,
          new CaptureEventSink() {
            @Override
            public void onChange(ChangeRecord change, RelationSchema relation) {
              changes.add(change);
              relations.add(relation);
            }

            @Override
            public void onDdl(DdlEvent ddl) {
              throw new AssertionError("a snapshot has no DDL");
            }
          });

  private static SnapshotTable table(long oid, String name, char replicaIdentity, int columns) {
    List<SnapshotTable.Column> cols = new ArrayList<>();
    for (int i = 0; i < columns; i++) {
      cols.add(new SnapshotTable.Column("c" + i, i == 0 ? 23 : 1043, i == 0 ? -1 : 14, i == 0));
    }
    return new SnapshotTable(oid, "shop", name, replicaIdentity, false, 10, null, cols, List.of());
  }

  private void row(String copyRow, boolean owned) {
    byte[] row = copyRow.getBytes(StandardCharsets.UTF_8);
    events.row(row, row.length, owned);
  }

  @Test
  void eachRowIsAnInsertOfTheSnapshotTransactionNumberedInTotalAndTableOrder() {
    events.table(table(16_384, "order line", 'd', 2));
    row("1\ta\n", true);
    row("2\tb\n", false);
    events.table(table(16_390, "stock", 'd', 2));
    row("7\tc\n", true);
    assertThat(events.events()).isEqualTo(3);
    assertThat(changes).extracting(ChangeRecord::getTotalOrder).containsExactly(1L, 2L, 3L);
    assertThat(changes).extracting(ChangeRecord::getTableOrder).containsExactly(1L, 2L, 1L);
    ChangeRecord first = changes.get(0);
    assertThat(first.getTransactionId()).isEqualTo("snapshot");
    assertThat(first.getOperation()).isEqualTo(Operation.OPERATION_INSERT);
    assertThat(first.getPartitionOrder()).isZero();
    assertThat(first.getReplicaIdentity()).isEqualTo(ReplicaIdentity.REPLICA_IDENTITY_DEFAULT);
    assertThat(first.getRelation().getSchema()).isEqualTo("shop");
    assertThat(first.getRelation().getTable()).isEqualTo("order line");
    assertThat(first.getIdempotencyKey()).isEqualTo("src:1/6B374D48:snapshot:1");
    assertThat(changes.get(2).getIdempotencyKey()).isEqualTo("src:1/6B374D48:snapshot:3");
    assertThat(first.hasBefore()).isFalse();
    assertThat(first.getSchemaFingerprint()).as("one version per relation: none named").isEmpty();
    assertThat(text(first, 0)).isEqualTo("1");
    assertThat(text(changes.get(1), 1)).isEqualTo("b");
  }

  @Test
  void theSchemaVersionDescribesTheTableAsPgoutputDoes() {
    events.table(table(16_384, "order line", 'f', 2));
    row("1\ta\n", true);
    RelationSchema r = relations.get(0);
    assertThat(r.schemaVersion().getRelation().getSourceOid()).isEqualTo(16_384);
    assertThat(r.schemaVersion().getColumnsList())
        .extracting(
            ColumnDefinition::getName,
            ColumnDefinition::getTypeName,
            ColumnDefinition::getTypeModifier)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("c0", "integer", -1),
            org.assertj.core.groups.Tuple.tuple("c1", "character varying(10)", 14));
    assertThat(r.keyColumnCount()).as("REPLICA IDENTITY FULL: the whole row identifies").isZero();
    assertThat(changes.get(0).getReplicaIdentity())
        .isEqualTo(ReplicaIdentity.REPLICA_IDENTITY_FULL);
  }

  @Test
  void copyEscapesAreUndoneAndBackslashNIsNull() {
    events.table(table(42, "t", 'd', 5));
    row("7\t\\N\ta\\tb\\nc\\\\d\\re\\b\\f\\v\t\t\\101\\x42\\x4\\\\N\n", true);
    ChangeRecord c = changes.get(0);
    assertThat(c.getAfter().getColumnsCount()).isEqualTo(5);
    assertThat(text(c, 0)).isEqualTo("7");
    assertThat(c.getAfter().getColumns(1).getState()).isEqualTo(ColumnState.COLUMN_STATE_NULL);
    assertThat(text(c, 2)).isEqualTo("a\tb\nc\\d\re\b\f\u000B");
    assertThat(c.getAfter().getColumns(3).getState())
        .as("empty, not NULL")
        .isEqualTo(ColumnState.COLUMN_STATE_VALUE);
    assertThat(text(c, 3)).isEmpty();
    assertThat(text(c, 4))
        .isEqualTo("AB\u0004\\N"); // an escaped backslash before N is the text \N, not NULL
  }

  @Test
  void anEscapedValueLongerThanTheScratchBufferIsWhole() {
    events.table(table(42, "t", 'd', 2));
    String value = "line\n".repeat(2_000); // a long TOASTed text with newlines
    row("1\t" + value.replace("\n", "\\n") + "\n", true); // as COPY escapes them
    assertThat(text(changes.get(0), 1)).isEqualTo(value);
  }

  @Test
  void utf8PassesThroughUnchanged() {
    events.table(table(42, "t", 'd', 1));
    row("zürich ☃ 東京\n", true);
    assertThat(text(changes.get(0), 0)).isEqualTo("zürich ☃ 東京");
  }

  @Test
  void aRowNotOwnedIsCopiedSoTheReaderMayReuseItsBuffer() {
    events.table(table(42, "t", 'd', 2));
    byte[] buffer = "1\tabc\n".getBytes(StandardCharsets.UTF_8);
    events.row(buffer, buffer.length, false);
    Arrays.fill(buffer, (byte) 'z');
    assertThat(text(changes.get(0), 0)).isEqualTo("1");
    assertThat(text(changes.get(0), 1)).isEqualTo("abc");
  }

  @Test
  void aRowWithTheWrongNumberOfFieldsIsRefusedNamingTheTable() {
    events.table(table(42, "t", 'd', 3));
    assertThatThrownBy(() -> row("1\t2\n", true))
        .hasMessageContaining("2 fields")
        .hasMessageContaining("3 columns")
        .hasMessageContaining("shop.t");
    assertThatThrownBy(() -> row("1\t2\t3\t4\n", true)).hasMessageContaining("more than 3 fields");
    assertThat(changes).isEmpty();
    assertThat(events.events()).isZero();
  }

  @Test
  void aRowBeforeItsTableIsAnError() {
    assertThatThrownBy(() -> row("1\n", true)).isInstanceOf(IllegalStateException.class);
  }

  private static String text(ChangeRecord c, int column) {
    ColumnValue v = c.getAfter().getColumns(column);
    assertThat(v.getState()).isEqualTo(ColumnState.COLUMN_STATE_VALUE);
    return v.getTextBytes().toStringUtf8();
  }
}
