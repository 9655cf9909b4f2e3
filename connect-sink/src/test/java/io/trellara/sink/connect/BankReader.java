package io.trellara.sink.connect;

import io.trellara.testplatform.PostgresDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A reader of the target polling the bank invariant while transfers replicate: every source
 * transaction moves money between accounts, so any total but the expected one is a partial
 * transaction made visible.
 */
final class BankReader implements AutoCloseable {
  private final AtomicBoolean reading = new AtomicBoolean(true);
  private final AtomicLong reads = new AtomicLong();
  private final List<Long> wrongTotals = new ArrayList<>();
  private final Thread thread;

  BankReader(PostgresDatabase target, String sumQuery, long expectedTotal) {
    thread =
        new Thread(
            () -> {
              while (reading.get()) {
                long total = target.queryLong(sumQuery);
                reads.incrementAndGet();
                if (total != expectedTotal) {
                  synchronized (wrongTotals) {
                    wrongTotals.add(total);
                  }
                }
              }
            },
            "bank-reader");
    thread.start();
  }

  /** Stops reading; returns the totals that broke the invariant (empty when none did). */
  List<Long> stop() throws InterruptedException {
    reading.set(false);
    thread.join();
    synchronized (wrongTotals) {
      return List.copyOf(wrongTotals);
    }
  }

  long reads() {
    return reads.get();
  }

  @Override
  public void close() throws InterruptedException {
    stop();
  }
}
