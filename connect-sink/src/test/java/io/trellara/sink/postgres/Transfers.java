package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.val;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.TransactionEnvelope;
import java.util.Random;

/**
 * Bank transfers as a source would capture them, for the ITs: each transaction moves money between
 * accounts of {@code public.account} (absolute after-images, as CDC carries them) and records
 * itself in {@code public.ledger}; the total of the balances never changes.
 */
public final class Transfers {
  public static final RelationId ACCOUNT = rel("public", "account");
  public static final RelationId LEDGER = rel("public", "ledger");

  private final String sourceId;
  private final long[] balances;
  private final Random random;

  /** {@code accounts} accounts (ids 1..n) of {@code initial} each. */
  public Transfers(String sourceId, int accounts, long initial, long seed) {
    this.sourceId = sourceId;
    this.balances = new long[accounts + 1];
    java.util.Arrays.fill(balances, 1, accounts + 1, initial);
    this.random = new Random(seed);
  }

  /**
   * Transaction {@code number} (commit LSN {@code number * 0x100}): {@code moves} random transfers.
   */
  public TransactionEnvelope next(int number, int moves) {
    Tx t = Tx.tx(sourceId, number * 0x100L, Integer.toString(number));
    t.insert(
        LEDGER,
        key("tx", "integer", Integer.toString(number)),
        val("moves", "integer", Integer.toString(moves)));
    for (int m = 0; m < moves; m++) {
      int from = 1 + random.nextInt(balances.length - 1);
      int to = 1 + random.nextInt(balances.length - 1);
      long amount = 1 + random.nextInt(50);
      balances[from] -= amount;
      set(t, from);
      balances[to] += amount;
      set(t, to);
    }
    return t.build();
  }

  private void set(Tx t, int id) {
    t.update(
        ACCOUNT,
        null,
        key("id", "integer", Integer.toString(id)),
        val("balance", "bigint", Long.toString(balances[id])));
  }

  /** The balance of account {@code id} after every transaction made so far. */
  public long balance(int id) {
    return balances[id];
  }

  /**
   * Lane of an event over {@code lanes} lanes: accounts by id, ledger rows by transaction number.
   */
  public static int lane(Object event, int lanes) {
    ChangeRecord c = (ChangeRecord) event;
    return Integer.parseInt(c.getAfter().getColumns(0).getText()) % lanes;
  }
}
