package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.tx;
import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.v1.RelationId;
import io.trellara.sink.port.SourceTransaction;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TransactionGroupsTest {
  private static final RelationId T = rel("app", "t");

  private static SourceTransaction withRows(long lsn, int rows) {
    Tx t = tx(lsn);
    for (int i = 0; i < rows; i++) {
      t.insert(T, key("id", "integer", Long.toString(lsn * 1000 + i)));
    }
    return t.at("t", 0, lsn);
  }

  private static List<Integer> sizes(List<List<SourceTransaction>> groups) {
    return groups.stream().map(List::size).toList();
  }

  @Test
  void groupsAtMostTheMaximumNumberOfTransactions() {
    List<SourceTransaction> txs = new ArrayList<>();
    for (int i = 1; i <= 7; i++) {
      txs.add(withRows(i, 1));
    }
    assertThat(sizes(EnvelopeGroups.groups(txs, 3, 10_000))).containsExactly(3, 3, 1);
    assertThat(sizes(EnvelopeGroups.groups(txs, 1, 10_000))).containsExactly(1, 1, 1, 1, 1, 1, 1);
  }

  @Test
  void closesAGroupOnceItHoldsTheMaximumNumberOfChanges() {
    List<SourceTransaction> txs =
        List.of(withRows(1, 4), withRows(2, 4), withRows(3, 4), withRows(4, 1));
    assertThat(sizes(EnvelopeGroups.groups(txs, 500, 8))).containsExactly(2, 2);
  }

  @Test
  void neverSplitsATransactionLargerThanTheChangeBound() {
    List<SourceTransaction> txs = List.of(withRows(1, 1), withRows(2, 20), withRows(3, 1));
    assertThat(sizes(EnvelopeGroups.groups(txs, 500, 5))).containsExactly(2, 1);
    assertThat(sizes(EnvelopeGroups.groups(List.of(withRows(1, 20), withRows(2, 1)), 500, 5)))
        .containsExactly(1, 1);
  }

  @Test
  void aTransactionWithDdlEventsStartsAGroup() {
    SourceTransaction ddl =
        tx(3)
            .ddl("ALTER TABLE app.t ADD COLUMN c text", "app.t")
            .insert(T, key("id", "integer", "3000"))
            .at("t", 0, 3);
    List<SourceTransaction> txs = List.of(withRows(1, 1), withRows(2, 1), ddl, withRows(4, 1));
    assertThat(sizes(EnvelopeGroups.groups(txs, 500, 10_000))).containsExactly(2, 2);
    assertThat(sizes(EnvelopeGroups.groups(List.of(ddl, withRows(4, 1)), 500, 10_000)))
        .containsExactly(2);
  }
}
