package io.trellara.benchmarks.e2e.resnap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The arithmetic behind the re-snapshot benchmark's lag and reader figures. */
class LagFiguresTest {

  @Test
  void lagIsTheAgeOfTheOldestCommitNotYetVisible() {
    CommitLog log = new CommitLog();
    log.committed(2, 1_000);
    log.committed(4, 2_000);
    log.committed(6, 3_000);
    assertEquals(0, log.lagNanos(6, 5_000), "everything visible: no lag, however long ago");
    assertEquals(3_000, log.lagNanos(2, 5_000), "transfers 3-4 committed at 2,000 wait");
    assertEquals(3_000, log.lagNanos(3, 5_000), "half a transaction visible counts as not");
    assertEquals(4_000, log.lagNanos(0, 5_000), "nothing visible: since the first commit");
    assertEquals(0, log.lagNanos(2, 1_500), "a sample before the commit: never negative");
    assertEquals(6, log.lastId());
  }

  @Test
  void percentilesAreNearestRank() {
    List<long[]> w = samples(5, 1, 4, 2, 3, 10, 6, 7, 8, 9);
    assertEquals(5, Series.percentile(w, 50));
    assertEquals(10, Series.percentile(w, 99));
    assertEquals(9, Series.percentile(w, 90));
    assertEquals(1, Series.percentile(w, 0));
    assertEquals(10, Series.max(w));
    assertEquals(0, Series.percentile(List.of(), 99));
    assertEquals(3, Series.countAbove(w, 7));
  }

  @Test
  void timeAboveCountsEachSampleUntilTheNext() {
    // samples 100 apart: above at 100, 200 (a stretch of 200), below at 300, above at 400 and 500
    // (the last counts nothing: its end is unknown)
    List<long[]> w = samples(0, 5, 5, 0, 5, 5);
    assertArrayEquals(new long[] {300, 200}, Series.timeAbove(w, 1));
    assertArrayEquals(new long[] {0, 0}, Series.timeAbove(w, 5));
  }

  @Test
  void windowsAndTheFirstRecoveredSample() {
    Series s = new Series();
    long[] values = {0, 3, 9, 4, 0, 2};
    for (int i = 0; i < values.length; i++) {
      s.add(i * 100L, values[i]);
    }
    assertEquals(3, s.window(100, 300).size());
    assertEquals(300, s.firstAtOrBelow(200, 4));
    assertEquals(400, s.firstAtOrBelow(400, 0));
    assertEquals(Series.NONE, s.firstAtOrBelow(600, 100));
  }

  private static List<long[]> samples(long... values) {
    Series s = new Series();
    for (int i = 0; i < values.length; i++) {
      s.add(i * 100L, values[i]);
    }
    return s.window(0, Long.MAX_VALUE);
  }
}
