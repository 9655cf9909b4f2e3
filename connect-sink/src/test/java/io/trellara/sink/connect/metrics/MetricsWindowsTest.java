package io.trellara.sink.connect.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.connect.common.RateWindow;
import io.trellara.connect.common.TaskMBeans;
import java.lang.management.ManagementFactory;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

class MetricsWindowsTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void rateIsTheGrowthSinceTheOldestSampleInsideTheWindow() {
    RateWindow w = new RateWindow(10);
    assertThat(w.rate(0, 0)).isZero();
    w.tick(0, 0);
    w.tick(SECOND, 5);
    assertThat(w.rate(2 * SECOND, 20)).isEqualTo(10.0);
    // samples older than the window no longer count
    w.tick(20 * SECOND, 100);
    assertThat(w.rate(22 * SECOND, 110)).isEqualTo(5.0);
  }

  @Test
  void percentilesUseNearestRankOverTheRecentSamplesOnly() {
    LatencyWindow w = new LatencyWindow(100);
    assertThat(w.last()).isEqualTo(-1);
    assertThat(w.percentile(50)).isEqualTo(-1);
    for (int i = 1; i <= 100; i++) {
      w.record(i);
    }
    assertThat(w.percentile(50)).isEqualTo(50);
    assertThat(w.percentile(99)).isEqualTo(99);
    for (int i = 0; i < 100; i++) {
      w.record(1000);
    }
    assertThat(w.percentile(50)).isEqualTo(1000);
    assertThat(w.last()).isEqualTo(1000);
    assertThat(w.size()).isEqualTo(100);
  }

  @Test
  void beanNamesQuoteOnlyWhatJmxReserves() throws Exception {
    assertThat(TaskMBeans.name("sink-task", "orders-sink", "3"))
        .isEqualTo(new ObjectName("io.trellara:type=sink-task,connector=orders-sink,task=3"));
    ObjectName odd = TaskMBeans.name("sink-task", "a,b=c", "0");
    assertThat(ObjectName.unquote(odd.getKeyProperty("connector"))).isEqualTo("a,b=c");
  }

  @Test
  void aStoppingPredecessorDoesNotUnregisterItsSuccessor() throws Exception {
    ObjectName name = TaskMBeans.name("sink-task", "restarted", "0");
    SinkTaskMetrics first =
        new SinkTaskMetrics("restarted", "0", new io.trellara.sink.postgres.ApplyMetrics());
    SinkTaskMetrics second =
        new SinkTaskMetrics("restarted", "0", new io.trellara.sink.postgres.ApplyMetrics());
    first.start();
    second.start();
    first.close();
    assertThat(ManagementFactory.getPlatformMBeanServer().isRegistered(name)).isTrue();
    second.close();
    assertThat(ManagementFactory.getPlatformMBeanServer().isRegistered(name)).isFalse();
  }
}
