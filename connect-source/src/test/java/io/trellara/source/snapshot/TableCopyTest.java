package io.trellara.source.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The statements a snapshot reads a table with, and the key literal a range starts after. */
class TableCopyTest {
  private static SnapshotTable table(
      String filter, boolean partitioned, List<SnapshotTable.KeyColumn> key) {
    return new SnapshotTable(
        1,
        "Shop",
        "order lines",
        'd',
        partitioned,
        10,
        filter,
        List.of(
            new SnapshotTable.Column("note", 25, -1, false),
            new SnapshotTable.Column("b", 25, -1, true),
            new SnapshotTable.Column("a", 23, -1, true)),
        key);
  }

  private static final List<SnapshotTable.KeyColumn> KEY_B_A =
      List.of(new SnapshotTable.KeyColumn(1, "text"), new SnapshotTable.KeyColumn(2, "integer"));

  private static byte[] row(String copyText) {
    return copyText.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aTableWithoutKeyIsOneCopyOfTheTableOrOfAQueryWhenFilteredOrPartitioned() {
    assertThat(TableCopy.copySql(table(null, false, List.of())))
        .isEqualTo("COPY \"Shop\".\"order lines\" (\"note\", \"b\", \"a\") TO STDOUT");
    assertThat(TableCopy.copySql(table("(a > 1)", false, List.of())))
        .isEqualTo(
            "COPY (SELECT \"note\", \"b\", \"a\" FROM \"Shop\".\"order lines\" WHERE (a > 1)) TO STDOUT");
    assertThat(TableCopy.copySql(table(null, true, List.of())))
        .isEqualTo("COPY (SELECT \"note\", \"b\", \"a\" FROM \"Shop\".\"order lines\") TO STDOUT");
  }

  @Test
  void aRangeStartsAfterTheLastKeyInTheIndexsColumnOrderUnderTheRowFilter() {
    SnapshotTable t = table("(a > 1)", false, KEY_B_A);
    assertThat(TableCopy.rangeSql(t, null, 500))
        .isEqualTo(
            "COPY (SELECT \"note\", \"b\", \"a\" FROM \"Shop\".\"order lines\""
                + " WHERE ((a > 1)) ORDER BY \"b\", \"a\" LIMIT 500) TO STDOUT");
    String after = TableCopy.keyLiteral(t, row("n\tk\t7\n"));
    assertThat(TableCopy.rangeSql(t, after, 500))
        .isEqualTo(
            "COPY (SELECT \"note\", \"b\", \"a\" FROM \"Shop\".\"order lines\""
                + " WHERE ((a > 1)) AND (\"b\", \"a\") > (E'k'::text, E'7'::integer) ORDER BY \"b\", \"a\" LIMIT 500) TO STDOUT");
  }

  @Test
  void keyValuesAreUnescapedFromCopyAndQuotedAsEscapeStrings() {
    SnapshotTable t = table(null, false, KEY_B_A);
    // COPY writes the value  it's \ a<TAB>b  as  it's \\ a\tb ; the literal doubles the quote and
    // the backslash
    assertThat(TableCopy.keyLiteral(t, row("x\\ty\tit's \\\\ a\\tb\t42")))
        .isEqualTo("(E'it''s \\\\ a\tb'::text, E'42'::integer)");
    assertThat(TableCopy.keyLiteral(t, row("\\N\tz\\303\\274rich\\x21\t1\n")))
        .isEqualTo("(E'zürich!'::text, E'1'::integer)");
    assertThatThrownBy(() -> TableCopy.keyLiteral(t, row("x\t\\N\t1")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("key column b of Shop.order lines is NULL");
    assertThatThrownBy(() -> TableCopy.keyLiteral(t, row("x\ty")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no field 3");
  }
}
