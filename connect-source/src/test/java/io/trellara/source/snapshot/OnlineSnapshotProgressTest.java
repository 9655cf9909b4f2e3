package io.trellara.source.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.source.snapshot.OnlineSnapshotProgress.Outcome;
import io.trellara.source.snapshot.OnlineSnapshotProgress.State;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class OnlineSnapshotProgressTest {
  private final AtomicLong now = new AtomicLong(1_000_000L);
  private final OnlineSnapshotProgress online = new OnlineSnapshotProgress(now::get);

  private static SnapshotTable table(String name, long estimated, boolean keyed) {
    return new SnapshotTable(
        1,
        "public",
        name,
        'd',
        false,
        estimated,
        null,
        List.of(new SnapshotTable.Column("id", 23, -1, true)),
        keyed ? List.of(new SnapshotTable.KeyColumn(0, "integer")) : List.of());
  }

  @Test
  void aSnapshotIsQueuedThenRunsWithRatesChunksAndAnEtaThenCompletes() {
    assertThat(online.state()).isEqualTo(State.IDLE);
    assertThat(online.request()).isNull();
    assertThat(online.etaSeconds()).isEqualTo(-1);

    online.queued("reload-1", List.of("public.ledger", "public.account"), 0x1A2B3C8L);
    assertThat(online.state()).isEqualTo(State.QUEUED);
    assertThat(online.request().signalId()).isEqualTo("reload-1");
    assertThat(online.request().tablesText()).isEqualTo("public.ledger, public.account");
    assertThat(online.tablesQueued()).isEqualTo(2);
    now.addAndGet(1_500);
    assertThat(online.sinceSignalMs()).isEqualTo(1_500);
    assertThat(online.reading()).isNull();

    SnapshotProgress reading = online.started();
    assertThat(online.state()).isEqualTo(State.RUNNING);
    assertThat(reading.label()).isEqualTo("Online snapshot of signal reload-1");
    // what SnapshotReader does: 2 tables of about 10,000 rows, the first read in ranges of 1,000
    reading.started(2, 10_000, now.get());
    reading.table(table("ledger", 8_000, true), 1_000);
    assertThat(online.tablesQueued()).as("the other table").isEqualTo(1);
    for (int i = 0; i < 2_500; i++) {
      reading.row(10);
    }
    reading.tableRows(2_500);
    now.addAndGet(5_000);
    assertThat(reading.rows()).isEqualTo(2_500);
    assertThat(reading.bytes()).isEqualTo(25_000);
    assertThat(reading.tableRows()).isEqualTo(2_500);
    assertThat(reading.chunksDone()).isEqualTo(2);
    assertThat(reading.chunksTotal()).isEqualTo(8);
    assertThat(online.rowsPerSecond()).isEqualTo(500.0);
    assertThat(online.etaSeconds()).as("7,500 rows left at 500 rows/s").isEqualTo(15);
    assertThat(reading.summary(now.get()))
        .contains("0 of 2 tables", "500 rows/s", "about 15 s left", "reading public.ledger")
        .contains("(2 of 8 chunks)");

    reading.tableDone();
    reading.table(table("account", -1, false), 1_000);
    assertThat(online.tablesQueued()).isZero();
    assertThat(reading.chunksTotal()).as("a table without a usable key: one COPY").isEqualTo(1);
    assertThat(reading.chunksDone()).isZero();
    reading.tableDone();
    reading.ended(true, now.get());
    online.completed();

    assertThat(online.state()).isEqualTo(State.IDLE);
    assertThat(online.request()).isNull();
    assertThat(online.completedCount()).isEqualTo(1);
    OnlineSnapshotProgress.Finished last = online.last();
    assertThat(last.outcome()).isEqualTo(Outcome.COMPLETED);
    assertThat(last.rows()).isEqualTo(2_500);
    assertThat(last.bytes()).isEqualTo(25_000);
    assertThat(last.elapsedMs()).isEqualTo(5_000);
    assertThat(last.endedAtMs()).isEqualTo(now.get());
    assertThat(last.summary())
        .isEqualTo(
            "reload-1 COMPLETED public.ledger, public.account at 0/1A2B3C8: 2,500 rows, 25,000"
                + " bytes in 5000 ms");
  }

  @Test
  void theChunksOfATableNeverAnalysedAreUnknownAndNeverFewerThanThoseRead() {
    SnapshotProgress reading = new SnapshotProgress("x");
    reading.started(1, 0, now.get());
    reading.table(table("t", -1, true), 100);
    reading.tableRows(250);
    assertThat(reading.chunksTotal()).isEqualTo(-1);
    assertThat(reading.summary(now.get())).contains("(2 of ? chunks)");
    reading.table(table("u", 100, true), 100);
    reading.tableRows(450);
    assertThat(reading.chunksDone()).isEqualTo(4);
    assertThat(reading.chunksTotal()).as("reltuples was stale").isEqualTo(5);
    assertThat(reading.etaSeconds(now.get())).as("no estimate: unknown").isEqualTo(-1);
  }

  @Test
  void aFailedReadIsKeptAsTheLastWithItsReasonAndNothingIsRunningAfterIt() {
    online.queued("reload-2", List.of("public.big"), 0x10L);
    SnapshotProgress reading = online.started();
    reading.started(1, 1_000, now.get());
    reading.row(7);
    now.addAndGet(200);
    online.failed("connection lost");
    online.failedIfUnfinished("not again");

    assertThat(online.state()).isEqualTo(State.IDLE);
    assertThat(online.failedCount()).isEqualTo(1);
    assertThat(online.last().outcome()).isEqualTo(Outcome.FAILED);
    assertThat(online.last().rows()).isEqualTo(1);
    assertThat(online.last().elapsedMs()).isEqualTo(200);
    assertThat(online.last().summary()).endsWith("(connection lost)");
  }

  @Test
  void aReadThatThrowsIsCountedFailedByTheFinallyGuard() {
    online.queued("reload-3", List.of("public.big"), 0x10L);
    online.started();
    online.failedIfUnfinished("the task stopped");
    assertThat(online.failedCount()).isEqualTo(1);
    assertThat(online.last().reason()).isEqualTo("the task stopped");
  }

  @Test
  void aQueuedSnapshotCancelledBeforeItsReadsEndsWithNothingRead() {
    online.queued("reload-4", List.of("public.big"), 0x10L);
    online.cancelled("stop-snapshot signal stop-1");
    assertThat(online.state()).isEqualTo(State.IDLE);
    assertThat(online.cancelledCount()).isEqualTo(1);
    assertThat(online.last().outcome()).isEqualTo(Outcome.CANCELLED);
    assertThat(online.last().rows()).isZero();
    assertThat(online.last().elapsedMs()).as("it never began").isZero();
    assertThatThrownBy(online::started).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aRefusedSignalIsCountedAndKeptWithoutTouchingTheRunningSnapshot() {
    online.queued("reload-5", List.of("public.ledger"), 0x10L);
    online.refused("p-1", "pause-snapshot", "", "an online snapshot is read in one pass");
    assertThat(online.state()).as("refusals change no snapshot").isEqualTo(State.QUEUED);
    assertThat(online.refusedCount()).isEqualTo(1);
    assertThat(online.lastRefusal().summary())
        .isEqualTo("p-1 pause-snapshot: an online snapshot is read in one pass");
    online.refused("s-2", "snapshot", "public.nope", "not in publication");
    assertThat(online.lastRefusal().summary())
        .isEqualTo("s-2 snapshot public.nope: not in publication");
    assertThat(online.refusedCount()).isEqualTo(2);
  }
}
