package io.trellara.source.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.source.pgoutput.PgOutputMessage;
import io.trellara.source.pgoutput.PgOutputMessage.Begin;
import io.trellara.source.pgoutput.PgOutputMessage.Commit;
import io.trellara.source.pgoutput.PgOutputMessage.Insert;
import io.trellara.source.pgoutput.PgOutputMessage.Relation;
import io.trellara.source.pgoutput.PgOutputParser;
import io.trellara.source.pgoutput.TupleData;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The snapshot's pgoutput messages, read back by the stream's own parser. */
class PgOutputWriterTest {
    private final PgOutputWriter writer = new PgOutputWriter();
    private final PgOutputParser parser = new PgOutputParser(PgOutputParser.PROTOCOL_VERSION_2);

    @Test
    void beginAndCommitCarryTheConsistentPointAndXidZero() {
        Begin b = (Begin) parser.parse(writer.begin(0x1_6B37_4D48L, 1_767_225_600_000L));
        assertThat(b.finalLsn()).isEqualTo(0x1_6B37_4D48L);
        assertThat(b.xid()).isZero();
        Commit c = (Commit) parser.parse(writer.commit(0x1_6B37_4D48L, 1_767_225_600_000L));
        assertThat(c.commitLsn()).isEqualTo(0x1_6B37_4D48L);
        assertThat(c.endLsn()).isEqualTo(0x1_6B37_4D48L);
        assertThat(c.commitTimestampMicros()).isEqualTo(b.commitTimestampMicros());
        assertThat(io.trellara.source.pgoutput.PgTimestamps.toUnixEpochMillis(c.commitTimestampMicros()))
                .isEqualTo(1_767_225_600_000L);
    }

    @Test
    void aRelationIsDescribedAsPgoutputDescribesIt() {
        SnapshotTable t = new SnapshotTable(16_384, "shop", "order line", 'f', false, 10, null, List.of(
                new SnapshotTable.Column("id", 23, -1, true), new SnapshotTable.Column("note", 1043, 14, false)));
        Relation r = (Relation) parser.parse(writer.relation(t));
        assertThat(r.relationOid()).isEqualTo(16_384);
        assertThat(r.namespace()).isEqualTo("shop");
        assertThat(r.name()).isEqualTo("order line");
        assertThat(r.columns()).containsExactly(new Relation.Column(true, "id", 23, -1),
                new Relation.Column(false, "note", 1043, 14));
    }

    @Test
    void copyEscapesAreUndoneAndBackslashNIsNull() {
        Insert i = insert("7\t\\N\ta\\tb\\nc\\\\d\\re\\b\\f\\v\t\t\\101\\x42\\x4\\\\N\n", 5);
        TupleData t = i.newTuple();
        assertThat(t.columnCount()).isEqualTo(5);
        assertThat(text(t, 0)).isEqualTo("7");
        assertThat(t.isNull(1)).isTrue();
        assertThat(text(t, 2)).isEqualTo("a\tb\nc\\d\re\b\f\u000B");
        assertThat(t.isNull(3)).isFalse();
        assertThat(text(t, 3)).isEmpty();
        assertThat(text(t, 4)).isEqualTo("AB\u0004\\N"); // an escaped backslash before N is the text \N, not NULL
    }

    @Test
    void utf8PassesThroughUnchanged() {
        assertThat(text(insert("zürich ☃ 東京\n", 1).newTuple(), 0)).isEqualTo("zürich ☃ 東京");
    }

    @Test
    void aRowWithTheWrongNumberOfFieldsIsRefused() {
        assertThatThrownBy(() -> insert("1\t2\n", 3)).hasMessageContaining("2 fields").hasMessageContaining("3 columns");
        assertThatThrownBy(() -> insert("1\t2\t3\t4\n", 3)).hasMessageContaining("more than 3 fields");
    }

    private Insert insert(String copyRow, int columns) {
        byte[] row = copyRow.getBytes(StandardCharsets.UTF_8);
        PgOutputMessage m = parser.parse(writer.insert(42, row, row.length, columns));
        assertThat(((Insert) m).relationOid()).isEqualTo(42);
        return (Insert) m;
    }

    private static String text(TupleData t, int column) {
        var v = t.value(column);
        byte[] b = new byte[v.remaining()];
        v.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
