package io.trellara.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The online snapshot lines of {@code trellara status} from a source task's JMX attributes. */
class OnlineSnapshotStatusTest {

  private static Map<String, Object> counts() {
    Map<String, Object> a = new HashMap<>();
    a.put("OnlineSnapshotsCompleted", 1L);
    a.put("OnlineSnapshotsFailed", 0L);
    a.put("OnlineSnapshotsCancelled", 0L);
    a.put("OnlineSnapshotSignalsRefused", 2L);
    a.put("OnlineSnapshotLastRefusal", "p-1 pause-snapshot: read in one pass");
    return a;
  }

  @Test
  void aRunningSnapshotShowsItsTableRowsChunksRateAndEtaAndTheLastOneEnded() {
    Map<String, Object> a = counts();
    a.put("OnlineSnapshotState", "RUNNING");
    a.put("OnlineSnapshotSignalId", "reload-2");
    a.put("OnlineSnapshotTables", "public.ledger, public.account");
    a.put("OnlineSnapshotConsistentPoint", "0/1A2B3C8");
    a.put("OnlineSnapshotTablesDone", 0L);
    a.put("OnlineSnapshotTablesTotal", 2L);
    a.put("OnlineSnapshotTablesQueued", 1L);
    a.put("OnlineSnapshotCurrentTable", "public.ledger");
    a.put("OnlineSnapshotCurrentTableRows", 3072L);
    a.put("OnlineSnapshotChunksDone", 3L);
    a.put("OnlineSnapshotChunksTotal", -1L);
    a.put("OnlineSnapshotRows", 3072L);
    a.put("OnlineSnapshotBytes", 99_000L);
    a.put("OnlineSnapshotRowsPerSecond", 1536.4);
    a.put("OnlineSnapshotEtaSeconds", 12L);
    a.put("OnlineSnapshotLastOutcome", "COMPLETED");
    a.put("OnlineSnapshotLastSignalId", "reload-1");
    a.put("OnlineSnapshotLastTables", "public.ledger");
    a.put("OnlineSnapshotLastRows", 20_000L);
    a.put("OnlineSnapshotLastBytes", 640_000L);
    a.put("OnlineSnapshotLastElapsedMs", 830L);
    a.put("OnlineSnapshotLastEndedAtMs", 1_700_000_000_000L);

    assertThat(OnlineSnapshotStatus.fromJmx("0", a))
        .containsExactly(
            "  task 0  online_snapshot  state=RUNNING  signal=reload-2  tables=public.ledger,"
                + " public.account  consistent_point=0/1A2B3C8  tables_done=0/2  tables_queued=1"
                + "  table=public.ledger  table_rows=3072  chunks=3/?  rows=3072  bytes=99000"
                + "  rows_per_s=1536  eta_s=12",
            "  task 0  online_snapshot_last  outcome=COMPLETED  signal=reload-1"
                + "  tables=public.ledger  rows=20000  bytes=640000  elapsed_ms=830"
                + "  ended_at=2023-11-14T22:13:20Z",
            "  task 0  online_snapshot_counts  completed=1  failed=0  cancelled=0"
                + "  signals_refused=2  last_refusal=p-1 pause-snapshot: read in one pass");
  }

  @Test
  void aQueuedSnapshotShowsItsSignalAndConsistentPoint() {
    Map<String, Object> a = counts();
    a.put("OnlineSnapshotState", "QUEUED");
    a.put("OnlineSnapshotSignalId", "reload-3");
    a.put("OnlineSnapshotTables", "public.item");
    a.put("OnlineSnapshotConsistentPoint", "0/16B3748");
    a.put("OnlineSnapshotSinceSignalMs", 420L);
    assertThat(OnlineSnapshotStatus.fromJmx("1", a))
        .first()
        .isEqualTo(
            "  task 1  online_snapshot  state=QUEUED  signal=reload-3  tables=public.item"
                + "  consistent_point=0/16B3748  waiting_ms=420");
  }

  @Test
  void aBeanWithoutOnlineSnapshotAttributesShowsNothing() {
    assertThat(OnlineSnapshotStatus.fromJmx("0", Map.of("StallBoundSeconds", 300L))).isEmpty();
  }

  @Test
  void theOnlineSnapshotsSlotNameIsTheSourcesWithinPostgresLimit() {
    assertThat(OnlineSnapshotStatus.slotName("orders_slot")).isEqualTo("orders_slot_resnap");
    String long63 = "s".repeat(63);
    assertThat(OnlineSnapshotStatus.slotName(long63)).hasSize(63).endsWith("_resnap");
  }
}
