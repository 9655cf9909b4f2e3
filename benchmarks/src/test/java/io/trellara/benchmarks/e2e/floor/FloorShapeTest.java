package io.trellara.benchmarks.e2e.floor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

class FloorShapeTest {

  private static List<String> kinds(List<SourceRecord> records) {
    return records.stream()
        .map(r -> String.valueOf(r.headers().lastWithName(FloorShape.KIND).value()))
        .toList();
  }

  @Test
  void strictAndChunkedCarryTheRecordsOfTheirWireShape() {
    assertEquals(
        List.of("envelope"), kinds(new FloorShape("strict", "s", "l", 6, "slot").transaction(1)));
    assertEquals(
        List.of("chunk", "manifest", "commit_marker"),
        kinds(new FloorShape("strict_chunked", "s", "l", 6, "slot").transaction(1)));
  }

  @Test
  void partitionedCarriesAChunkPerLaneItsFourRowsHashTo() {
    FloorShape shape = new FloorShape("partitioned", "s", "l", 6, "slot");
    int chunks = 0;
    int transactions = 10_000;
    for (int n = 1; n <= transactions; n++) {
      List<SourceRecord> records = shape.transaction(n);
      List<String> kinds = kinds(records);
      assertEquals(
          List.of("manifest", "commit_marker"), kinds.subList(kinds.size() - 2, kinds.size()));
      Set<Integer> lanes = new HashSet<>();
      for (SourceRecord r : records.subList(0, records.size() - 2)) {
        assertEquals("l", r.topic());
        assertTrue(lanes.add(r.kafkaPartition()), "one chunk per lane");
        assertEquals(records.get(0).key(), r.key(), "every record of a transaction has its key");
      }
      assertTrue(lanes.size() >= 1 && lanes.size() <= 4);
      chunks += lanes.size();
    }
    // four rows over six lanes touch 6 * (1 - (5/6)^4) ≈ 3.11 lanes on average
    double mean = (double) chunks / transactions;
    assertTrue(mean > 3.0 && mean < 3.2, "mean lanes " + mean);
  }
}
