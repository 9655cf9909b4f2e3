package io.trellara.source.connect.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.source.snapshot.OnlineSnapshotProgress;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The online snapshots' attributes, read through a real MBeanServer as JMX clients read them. */
class OnlineSnapshotAttributesTest {
  private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();

  private final AtomicLong now = new AtomicLong(5_000_000L);
  private final OnlineSnapshotProgress online = new OnlineSnapshotProgress(now::get);
  private ObjectName name;

  /** The attributes alone, as the source task's bean carries them. */
  static final class Bean extends OnlineSnapshotAttributes implements OnlineSnapshotMXBean {
    Bean(OnlineSnapshotProgress online) {
      watch(online);
    }
  }

  @AfterEach
  void unregister() throws Exception {
    if (name != null && JMX.isRegistered(name)) {
      JMX.unregisterMBean(name);
    }
  }

  private Object attribute(String a) throws Exception {
    return JMX.getAttribute(name, a);
  }

  @Test
  void theSourceTasksBeanCarriesEveryOnlineSnapshotAttribute() {
    Object impl =
        Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {SourceTaskMetricsMXBean.class},
            (p, m, args) -> null);
    List<String> attributes =
        Arrays.stream(
                new StandardMBean(
                        (SourceTaskMetricsMXBean) impl, SourceTaskMetricsMXBean.class, true)
                    .getMBeanInfo()
                    .getAttributes())
            .map(MBeanAttributeInfo::getName)
            .toList();
    assertThat(attributes)
        .contains(
            "OnlineSnapshotState",
            "OnlineSnapshotSignalId",
            "OnlineSnapshotTables",
            "OnlineSnapshotConsistentPoint",
            "OnlineSnapshotTablesQueued",
            "OnlineSnapshotCurrentTable",
            "OnlineSnapshotRows",
            "OnlineSnapshotBytes",
            "OnlineSnapshotChunksDone",
            "OnlineSnapshotChunksTotal",
            "OnlineSnapshotRowsPerSecond",
            "OnlineSnapshotEtaSeconds",
            "OnlineSnapshotsCompleted",
            "OnlineSnapshotSignalsRefused",
            "OnlineSnapshotLastOutcome",
            "OnlineSnapshotLastRows",
            "OnlineSnapshotLastRefusal",
            // the initial snapshot's are still there
            "SnapshotState",
            "SnapshotRows");
  }

  @Test
  void aQueuedThenCompletedSnapshotReadsThroughJmx() throws Exception {
    name = new ObjectName("io.trellara.test:type=online-snapshot,name=" + System.nanoTime());
    JMX.registerMBean(new Bean(online), name);
    assertThat(attribute("OnlineSnapshotState")).isEqualTo("IDLE");
    assertThat(attribute("OnlineSnapshotSignalId")).isNull();
    assertThat(attribute("OnlineSnapshotEtaSeconds")).isEqualTo(-1L);
    assertThat(attribute("OnlineSnapshotLastRows")).isEqualTo(-1L);

    online.queued("reload-1", List.of("public.ledger"), 0x1A2B3C8L);
    now.addAndGet(300);
    assertThat(attribute("OnlineSnapshotState")).isEqualTo("QUEUED");
    assertThat(attribute("OnlineSnapshotSignalId")).isEqualTo("reload-1");
    assertThat(attribute("OnlineSnapshotTables")).isEqualTo("public.ledger");
    assertThat(attribute("OnlineSnapshotConsistentPoint")).isEqualTo("0/1A2B3C8");
    assertThat(attribute("OnlineSnapshotTablesQueued")).isEqualTo(1L);
    assertThat(attribute("OnlineSnapshotSinceSignalMs")).isEqualTo(300L);
    assertThat(attribute("OnlineSnapshotCurrentTable")).isNull();

    online.started();
    assertThat(attribute("OnlineSnapshotState")).isEqualTo("RUNNING");
    assertThat(attribute("OnlineSnapshotTablesTotal")).isEqualTo(1L);
    assertThat(attribute("OnlineSnapshotRows")).isEqualTo(0L);
    online.completed();
    online.refused("p-1", "pause-snapshot", "", "read in one pass");

    assertThat(attribute("OnlineSnapshotState")).isEqualTo("IDLE");
    assertThat(attribute("OnlineSnapshotsCompleted")).isEqualTo(1L);
    assertThat(attribute("OnlineSnapshotLastOutcome")).isEqualTo("COMPLETED");
    assertThat(attribute("OnlineSnapshotLastSignalId")).isEqualTo("reload-1");
    assertThat(attribute("OnlineSnapshotLastTables")).isEqualTo("public.ledger");
    assertThat(attribute("OnlineSnapshotLastRows")).isEqualTo(0L);
    assertThat(attribute("OnlineSnapshotLastEndedAtMs")).isEqualTo(now.get());
    assertThat((String) attribute("OnlineSnapshotLastSummary"))
        .startsWith("reload-1 COMPLETED public.ledger at 0/1A2B3C8");
    assertThat(attribute("OnlineSnapshotSignalsRefused")).isEqualTo(1L);
    assertThat(attribute("OnlineSnapshotLastRefusal"))
        .isEqualTo("p-1 pause-snapshot: read in one pass");
  }
}
