package io.trellara.benchmarks.e2e.floor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The Kafka records one W1 transaction (2 updates and 2 inserts) becomes in a boundary mode, with
 * Trellara's keys, headers and source offsets, but bytes that nobody reads: strict, one envelope;
 * strict chunked, a chunk, a manifest and a marker; partitioned, a chunk on each lane its four rows
 * hash to (of six, at random), then the manifest and the marker on the strict topic. Sizes: the
 * envelope a little over the real one (749 bytes, {@code WireSize}); chunks, manifests and markers
 * estimated.
 */
final class FloorShape {
  static final String KIND = "trellara.kind";
  private static final byte[] ENVELOPE = new byte[850];
  private static final byte[] MANIFEST = new byte[250];
  private static final byte[] MARKER = new byte[180];
  private static final int CHUNK_BASE = 300;
  private static final int CHUNK_PER_ROW = 130;
  static final int ROWS = 4;

  private final String shape;
  private final String strictTopic;
  private final String lanesTopic;
  private final int lanes;
  private final SplittableRandom random = new SplittableRandom(42);
  private final Map<String, String> sourcePartition;

  FloorShape(String shape, String strictTopic, String lanesTopic, int lanes, String slot) {
    if (!List.of("strict", "strict_chunked", "partitioned").contains(shape)) {
      throw new IllegalArgumentException("shape " + shape);
    }
    this.shape = shape;
    this.strictTopic = strictTopic;
    this.lanesTopic = lanesTopic;
    this.lanes = lanes;
    this.sourcePartition = Map.of("slot", slot);
  }

  /** The records of transaction {@code n} (from 1), its closing record last. */
  List<SourceRecord> transaction(long n) {
    String key = "bench-floor/db:0/" + Long.toHexString(0x1000000L + n * 512) + ':' + (1000 + n);
    Map<String, Object> offset = Map.of("lsn", 0x1000000L + n * 512, "xid", 1000 + n);
    List<SourceRecord> out = new ArrayList<>(6);
    switch (shape) {
      case "strict" ->
          out.add(
              record(
                  strictTopic, 0, key, offset, ENVELOPE, "envelope", "strict_transaction_order"));
      case "strict_chunked" -> {
        String mode = "strict_chunked_transaction_order";
        out.add(
            record(
                strictTopic,
                0,
                key,
                offset,
                new byte[CHUNK_BASE + ROWS * CHUNK_PER_ROW],
                "chunk",
                mode));
        out.add(record(strictTopic, 0, key, offset, MANIFEST, "manifest", mode));
        out.add(record(strictTopic, 0, key, offset, MARKER, "commit_marker", mode));
      }
      default -> {
        String mode = "partitioned_scale_mode";
        int[] rows = new int[lanes];
        for (int i = 0; i < ROWS; i++) {
          rows[random.nextInt(lanes)]++;
        }
        for (int lane = 0; lane < lanes; lane++) {
          if (rows[lane] > 0) {
            out.add(
                record(
                    lanesTopic,
                    lane,
                    key,
                    offset,
                    new byte[CHUNK_BASE + rows[lane] * CHUNK_PER_ROW],
                    "chunk",
                    mode));
          }
        }
        out.add(record(strictTopic, 0, key, offset, MANIFEST, "manifest", mode));
        out.add(record(strictTopic, 0, key, offset, MARKER, "commit_marker", mode));
      }
    }
    return out;
  }

  private SourceRecord record(
      String topic,
      int partition,
      String key,
      Map<String, Object> offset,
      byte[] value,
      String kind,
      String mode) {
    ConnectHeaders headers = new ConnectHeaders();
    headers.addString(KIND, kind);
    headers.addString("trellara.counts", "dml=4 ddl=0 source_total=4");
    headers.addString("trellara.boundary_mode", mode);
    return new SourceRecord(
        sourcePartition,
        offset,
        topic,
        partition,
        Schema.STRING_SCHEMA,
        key,
        Schema.BYTES_SCHEMA,
        value,
        System.currentTimeMillis(),
        headers);
  }

  static boolean closes(String kind) {
    return kind.equals("envelope") || kind.equals("commit_marker");
  }
}
