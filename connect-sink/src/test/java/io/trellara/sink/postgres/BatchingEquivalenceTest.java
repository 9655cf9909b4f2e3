package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.nul;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.row;
import static io.trellara.sink.postgres.Tx.toast;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.v1.RelationId;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A seeded random workload (inserts, partial updates, key-changing updates, deletes over a small
 * key space so rows are touched repeatedly) applied with different grouping and COPY thresholds
 * always yields the state of a simple in-memory model: batching never changes the observable
 * result.
 */
class BatchingEquivalenceTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  static final RelationId ITEMS = rel("app", "items");

  @Test
  void batchedAndGroupedApplyEqualsTheSequentialModel() {
    for (long seed = 1; seed <= 3; seed++) {
      for (int[] setting : new int[][] {{1, 1_000_000}, {7, 3}, {50, 1}}) {
        pg.reset();
        pg.exec("CREATE TABLE app.items (id int PRIMARY KEY, name text, qty int)");
        Map<Integer, List<String>> model = new TreeMap<>();
        List<SourceTransaction> txs = workload(new Random(seed), model);
        try (TransactionApplier a =
            new TransactionApplier(
                pg.connections(),
                RelationMapper.identity(),
                ApplyOptions.builder("s")
                    .groupMaxTransactions(setting[0])
                    .copyThreshold(setting[1])
                    .build())) {
          a.apply(txs);
        }
        List<List<String>> expected = new ArrayList<>();
        model.forEach(
            (id, v) -> expected.add(Arrays.asList(Integer.toString(id), v.get(0), v.get(1))));
        assertThat(pg.rows("SELECT id, name, qty FROM app.items ORDER BY id"))
            .as("seed %d group %d copy %d", seed, setting[0], setting[1])
            .isEqualTo(expected);
      }
    }
  }

  private static List<SourceTransaction> workload(Random r, Map<Integer, List<String>> model) {
    List<SourceTransaction> txs = new ArrayList<>();
    for (int t = 1; t <= 150; t++) {
      Tx tx = tx(0x100L * t);
      int changes = 1 + r.nextInt(r.nextInt(10) == 0 ? 60 : 6);
      for (int c = 0; c < changes; c++) {
        int id = 1 + r.nextInt(40);
        if (!model.containsKey(id)) {
          String name = r.nextBoolean() ? "n" + r.nextInt(1000) : null;
          String qty = Integer.toString(r.nextInt(100));
          tx.insert(
              ITEMS,
              key("id", "integer", Integer.toString(id)),
              name == null ? nul("name", "text") : val("name", "text", name),
              val("qty", "integer", qty));
          model.put(id, Arrays.asList(name, qty));
        } else if (r.nextInt(4) == 0) {
          tx.delete(ITEMS, key("id", "integer", Integer.toString(id)));
          model.remove(id);
        } else if (r.nextInt(5) == 0) {
          int to = 41 + r.nextInt(1000);
          if (model.containsKey(to)) {
            continue;
          }
          List<String> old = model.remove(id);
          String qty = Integer.toString(r.nextInt(100));
          tx.update(
              ITEMS,
              row(key("id", "integer", Integer.toString(id))),
              key("id", "integer", Integer.toString(to)),
              toast("name", "text"),
              val("qty", "integer", qty));
          model.put(to, Arrays.asList(old.get(0), qty));
        } else {
          String qty = Integer.toString(r.nextInt(100));
          tx.update(
              ITEMS,
              null,
              key("id", "integer", Integer.toString(id)),
              toast("name", "text"),
              val("qty", "integer", qty));
          model.get(id).set(1, qty);
        }
      }
      try {
        txs.add(tx.at("t", 0, t));
      } catch (RuntimeException emptyTransaction) {
        // every change was skipped: no envelope (an empty transaction is not on the wire)
      }
    }
    return txs;
  }
}
