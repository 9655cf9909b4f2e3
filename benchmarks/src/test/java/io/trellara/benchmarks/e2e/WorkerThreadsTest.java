package io.trellara.benchmarks.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkerThreadsTest {
  private static final String DUMP =
      String.join(
          "\n",
          "\"trellara-capture-bench_partitioned_slot\" #88 daemon prio=5 os_prio=0 cpu=1200.50ms elapsed=60.1s"
              + " tid=0x1 nid=0x2 runnable  [0x0]",
          "   java.lang.Thread.State: RUNNABLE",
          "\"task-thread-bench-partitioned-source-0\" #80 prio=5 os_prio=0 cpu=300.00ms elapsed=60s tid=0x3 nid=0x4"
              + " waiting on condition  [0x0]",
          "\"task-thread-bench-partitioned-sink-0\" #81 prio=5 os_prio=0 cpu=2000.25ms elapsed=60s tid=0x5 nid=0x6"
              + " runnable  [0x0]",
          "\"kafka-producer-network-thread | connector-producer-bench-partitioned-source-0\" #82 daemon prio=5"
              + " os_prio=0 cpu=400.00ms elapsed=60s tid=0x7 nid=0x8 runnable  [0x0]",
          "\"kafka-producer-network-thread | bench-offsets\" #12 daemon prio=5 os_prio=0 cpu=5.00ms elapsed=90s"
              + " tid=0x13 nid=0x14 runnable",
          "\"C2 CompilerThread0\" #7 daemon prio=9 os_prio=0 cpu=900.00ms elapsed=90s tid=0x9 nid=0xa waiting",
          "\"C1 CompilerThread0\" #8 daemon prio=9 os_prio=0 cpu=100.00ms elapsed=90s tid=0xb nid=0xc waiting",
          "\"GC Thread#0\" os_prio=0 cpu=50.00ms elapsed=90s tid=0xd nid=0xe runnable",
          "\"G1 Refine#0\" os_prio=0 cpu=1.00ms elapsed=90s tid=0xf nid=0x10 runnable",
          "\"VM Thread\" os_prio=0 cpu=20.00ms elapsed=90s tid=0x11 nid=0x12 runnable");

  @Test
  void threadsAreSummedByWhatTheyDo() {
    Map<String, Double> cpu = WorkerThreads.byRole(Map.of(), WorkerThreads.byThread(DUMP));
    assertEquals(1200.50, cpu.get("capture"), 1e-9);
    assertEquals(300.00, cpu.get("source task"), 1e-9);
    assertEquals(2000.25, cpu.get("sink task"), 1e-9);
    assertEquals(400.00, cpu.get("producer"), 1e-9);
    assertEquals(1000.00, cpu.get("JIT"), 1e-9);
    assertEquals(51.00, cpu.get("GC"), 1e-9);
    assertEquals(
        25.00, cpu.get("other"), 1e-9); // the worker's own offsets producer and the VM thread
    assertEquals(WorkerThreads.ROLES, cpu.keySet().stream().toList());
  }

  @Test
  void aLegIsPrintedPerTransaction() {
    Map<String, Double> before = WorkerThreads.byThread(DUMP);
    Map<String, Double> after =
        WorkerThreads.byThread(DUMP.replace("cpu=2000.25ms", "cpu=4000.25ms"));
    assertEquals(
        "100.0 µs per transaction (25.0 per row): capture 0.0, source task 0.0, producer 0.0,"
            + " sink task 100.0, JIT 0.0, GC 0.0, other 0.0",
        WorkerThreads.perTransaction(WorkerThreads.byRole(before, after), 20_000));
    assertEquals("", WorkerThreads.perTransaction(Map.of(), 20_000));
  }

  @Test
  void aThreadThatEndedCountsNothingAndOneThatStartedCountsWhole() {
    Map<String, Double> before = WorkerThreads.byThread(DUMP);
    // the VM thread ended; a second sink task started with 40 ms
    Map<String, Double> after =
        WorkerThreads.byThread(
            DUMP.replace(
                "\"VM Thread\" os_prio=0 cpu=20.00ms",
                "\"task-thread-bench-partitioned-sink-1\" #90 prio=5 os_prio=0 cpu=40.00ms"));
    Map<String, Double> used = WorkerThreads.byRole(before, after);
    assertEquals(40.0, used.get("sink task"), 1e-9);
    assertEquals(0.0, used.get("other"), 1e-9);
  }
}
