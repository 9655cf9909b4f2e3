package io.trellara.source.startup;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Why offsets Connect had written were not found after a worker restart (issue 27), shown with
 * Connect's own offset storage classes: Connect finds an offset only under the exact key bytes it
 * was written under, those bytes follow the partition map's iteration order, and the partition map
 * an earlier version built with {@code Map.of} iterates in an order each JVM picks at random.
 */
class SourcePartitionKeyTest {
  private static final Map<String, Object> OFFSET =
      Map.of("commit_lsn", "0/16B3748", "end_lsn", 0x16B3790L, "transaction_id", "771");

  private static Map<String, String> ordered(String k1, String v1, String k2, String v2) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(k1, v1);
    m.put(k2, v2);
    return m;
  }

  @Test
  void connectFindsAnOffsetOnlyUnderThePartitionsKeyOrderItWasWrittenIn() throws Exception {
    Map<String, String> sourceFirst = ordered("source_id", "orders", "slot", "orders_slot");
    Map<String, String> slotFirst = ordered("slot", "orders_slot", "source_id", "orders");
    assertThat(sourceFirst).isEqualTo(slotFirst); // equal maps ...
    try (ConnectOffsetKeys.Store store = new ConnectOffsetKeys.Store()) {
      ConnectOffsetKeys.write(store, sourceFirst, OFFSET);
      assertThat(ConnectOffsetKeys.read(store, sourceFirst)).containsEntry("end_lsn", 0x16B3790L);
      assertThat(ConnectOffsetKeys.read(store, slotFirst))
          .as("... but Connect looks the offset up by the bytes of [connector, partition]")
          .isNull();
    }
    assertThat(ConnectOffsetKeys.storedKey(sourceFirst))
        .isEqualTo("[\"orders-source\",{\"source_id\":\"orders\",\"slot\":\"orders_slot\"}]");
    assertThat(ConnectOffsetKeys.storedKey(slotFirst))
        .isEqualTo("[\"orders-source\",{\"slot\":\"orders_slot\",\"source_id\":\"orders\"}]");
  }

  @Test
  void theSourcePartitionIteratesSourceIdThenSlotSoItsKeyIsTheSameInEveryJvm() throws Exception {
    Map<String, String> partition = SourceOffsets.partition("orders", "orders_slot");
    assertThat(SourceOffsets.keys(partition)).containsExactly("source_id", "slot");
    assertThat(ConnectOffsetKeys.storedKey(partition))
        .isEqualTo("[\"orders-source\",{\"source_id\":\"orders\",\"slot\":\"orders_slot\"}]");
  }

  /**
   * The evidence across JVMs: in fresh JVMs (as a restarted worker is), the partition built with
   * {@code Map.of} is stored under two different keys, the partition built now under one. Up to 24
   * JVMs are started; the earlier partition shows both keys within them unless 24 coin flips came
   * out the same (2^-23).
   */
  @Test
  void inFreshJvmsTheEarlierPartitionGetsTwoDifferentKeysAndTheCurrentOneOne() throws Exception {
    Set<String> before = new LinkedHashSet<>();
    Set<String> now = new LinkedHashSet<>();
    for (int jvm = 0; jvm < 24 && (before.size() < 2 || jvm < 4); jvm++) {
      List<String> lines = runKeyPrinter();
      before.add(lines.get(0));
      now.add(lines.get(1));
    }
    assertThat(before)
        .as("Map.of: the key Connect stores the offset under depends on the JVM")
        .containsExactlyInAnyOrder(
            "[\"orders-source\",{\"source_id\":\"orders\",\"slot\":\"orders_slot\"}]",
            "[\"orders-source\",{\"slot\":\"orders_slot\",\"source_id\":\"orders\"}]");
    assertThat(now)
        .containsExactly("[\"orders-source\",{\"source_id\":\"orders\",\"slot\":\"orders_slot\"}]");
  }

  @Test
  void anOffsetAnEarlierVersionWroteUnderTheOtherOrderIsFoundAndTheNewerOfTwoWins()
      throws Exception {
    try (ConnectOffsetKeys.Store store = new ConnectOffsetKeys.Store()) {
      ConnectOffsetKeys.write(store, ordered("slot", "orders_slot", "source_id", "orders"), OFFSET);
      SourceOffsets.Lookup found =
          SourceOffsets.lookup("orders", "orders_slot", p -> ConnectOffsetKeys.read(store, p));
      assertThat(found.current()).isInstanceOf(StoredOffset.None.class);
      assertThat(found.offset()).isInstanceOf(StoredOffset.At.class);
      assertThat(((StoredOffset.At) found.offset()).position().endLsn()).isEqualTo(0x16B3790L);
      assertThat(found.describe()).contains("{slot, source_id}");

      Map<String, Object> later = new LinkedHashMap<>(OFFSET);
      later.put("end_lsn", 0x16B4000L);
      ConnectOffsetKeys.write(store, SourceOffsets.partition("orders", "orders_slot"), later);
      SourceOffsets.Lookup both =
          SourceOffsets.lookup("orders", "orders_slot", p -> ConnectOffsetKeys.read(store, p));
      assertThat(((StoredOffset.At) both.offset()).position().endLsn()).isEqualTo(0x16B4000L);
      assertThat(both.describe()).contains("both key orders");
    }
  }

  private static List<String> runKeyPrinter() throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(ConnectOffsetKeys.class.getName());
    Process p = new ProcessBuilder(command).redirectErrorStream(false).start();
    List<String> lines = new ArrayList<>();
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = out.readLine()) != null; ) {
        if (line.startsWith("[")) {
          lines.add(line);
        }
      }
    }
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(lines).as("the key printer's output").hasSize(2);
    return lines;
  }
}
