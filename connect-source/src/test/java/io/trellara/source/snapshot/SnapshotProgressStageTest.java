package io.trellara.source.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.connect.common.liveness.Stage;
import io.trellara.connect.common.liveness.Stall;
import io.trellara.connect.common.liveness.Watchdog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SnapshotProgressStageTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final Watchdog dog = Watchdog.manual("source", now::get, Duration.ofSeconds(60));
  private final List<Stall> stalls = new ArrayList<>();
  private final Stage stage = dog.stage("snapshot read", stalls::add);
  private final SnapshotProgress progress = new SnapshotProgress();

  private void advance(long seconds) {
    now.addAndGet(seconds * 1_000_000_000L);
    dog.check();
  }

  @Test
  void rowsFlowingAreProgressAndATableWithoutRowsPastTheBoundStallsNamingIt() {
    progress.watch(stage);
    progress.started(2, 1000, 0);
    progress.table("public.item");
    for (int i = 0; i < 10; i++) {
      advance(50);
      progress.row(12);
    }
    assertThat(stalls).isEmpty();
    progress.tableDone();
    progress.table("public.big");
    advance(59);
    assertThat(stage.secondsSinceProgress()).isEqualTo(59);
    advance(2);
    assertThat(stalls).hasSize(1);
    assertThat(stalls.get(0).describe()).contains("snapshot read", "rows of table public.big");
  }

  @Test
  void rowsReplayedFromAReadAheadFileAreProgressAndAnEndedSnapshotWaitsForNothing() {
    progress.watch(stage);
    progress.table("public.item");
    advance(50);
    progress.moved();
    advance(50);
    assertThat(stalls).isEmpty();
    progress.ended(true, 0);
    advance(600);
    assertThat(stalls).isEmpty();
    assertThat(stage.waitingFor()).isNull();
  }
}
