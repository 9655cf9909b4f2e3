package io.trellara.source.startup;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The source partition and offsets the task gives Kafka Connect, and how it finds them again.
 *
 * <p>Connect stores an offset under the bytes its internal JSON converter makes of {@code
 * [connector, partition map]}, written in the map's iteration order, and finds it again only under
 * the very same bytes. The partition map is therefore built in one fixed order ({@code source_id},
 * then {@code slot}). Versions before this one built it with {@code Map.of}, whose iteration order
 * is chosen at random by each JVM: a restarted worker looked under the other order about every
 * second time, found nothing, and took a snapshot again. {@link #lookup} reads both orders and
 * keeps the newer offset, so offsets written by those versions are still found.
 */
public final class SourceOffsets {
  public static final String SOURCE_ID = "source_id";
  public static final String SLOT = "slot";

  public static final String COMMIT_LSN = "commit_lsn";
  public static final String END_LSN = "end_lsn";
  public static final String TRANSACTION_ID = "transaction_id";

  /** The server the offset was written against (see ServerIdentity): system identifier, as text. */
  public static final String SYSTEM_ID = "system_id";

  public static final String TIMELINE = "timeline";

  /** {@code snapshot=running}: the records of a snapshot before its commit marker. */
  public static final String SNAPSHOT = "snapshot";

  public static final String RUNNING = "running";

  /** The consistent point of the running snapshot ({@code X/X}). */
  public static final String SNAPSHOT_LSN = "snapshot_lsn";

  /**
   * The offset of records published before the task's first closing record when it has no position
   * of its own (it starts at the slot's): a map, never null, since Connect deletes the stored
   * offset when it commits a null one.
   */
  public static final Map<String, Object> NO_POSITION = Map.of("position", "slot");

  private SourceOffsets() {}

  /** The source partition: {@code source_id}, then {@code slot}, in that order in every JVM. */
  public static Map<String, String> partition(String sourceId, String slot) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(SOURCE_ID, sourceId);
    m.put(SLOT, slot);
    return Collections.unmodifiableMap(m);
  }

  /** The other order, under which earlier versions' offsets are about half of the time. */
  static Map<String, String> reversedPartition(String sourceId, String slot) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(SLOT, slot);
    m.put(SOURCE_ID, sourceId);
    return Collections.unmodifiableMap(m);
  }

  /**
   * What Connect holds for this source, looked up under both key orders ({@code reader}: Connect's
   * {@code OffsetStorageReader.offset}).
   */
  public static Lookup lookup(
      String sourceId, String slot, Function<Map<String, String>, Map<String, Object>> reader) {
    StoredOffset current = StoredOffset.of(reader.apply(partition(sourceId, slot)));
    StoredOffset reversed = StoredOffset.of(reader.apply(reversedPartition(sourceId, slot)));
    return new Lookup(current, reversed);
  }

  /**
   * Connect's offsets under the fixed key order ({@code current}) and under the reversed one an
   * earlier version may have used.
   */
  public record Lookup(StoredOffset current, StoredOffset reversed) {
    /** The newer of the two: see {@link SourceOffsets#newer}. */
    public StoredOffset offset() {
      return newer(current, reversed);
    }

    /** What was found where, for the log. */
    public String describe() {
      if (reversed instanceof StoredOffset.None) {
        return current instanceof StoredOffset.None
            ? "none (looked up under both key orders of the partition)"
            : current.describe();
      }
      if (current instanceof StoredOffset.None) {
        return reversed.describe()
            + " (found under the key order {slot, source_id} an earlier version wrote)";
      }
      return offset().describe()
          + " (offsets under both key orders: "
          + current.describe()
          + " and "
          + reversed.describe()
          + "; the newer one)";
    }
  }

  /**
   * The newer of two stored offsets: a position over none; of two positions the later end LSN; a
   * running snapshot over a position it began after (its consistent point is later), and a running
   * snapshot of unknown consistent point over any position (taking the snapshot again is safe,
   * resuming past an unfinished one is not).
   */
  static StoredOffset newer(StoredOffset a, StoredOffset b) {
    if (a instanceof StoredOffset.None) {
      return b;
    }
    if (b instanceof StoredOffset.None) {
      return a;
    }
    return lsn(b) > lsn(a) ? b : a;
  }

  /** The LSN an offset stands at, for comparison; a running snapshot of unknown point is last. */
  static long lsn(StoredOffset o) {
    if (o instanceof StoredOffset.Running r) {
      return r.consistentPoint() == 0 ? Long.MAX_VALUE : r.consistentPoint();
    }
    return o instanceof StoredOffset.At at ? at.position().endLsn() : 0;
  }

  /** The keys of a partition map in their iteration order (tests). */
  static List<String> keys(Map<String, String> partition) {
    return List.copyOf(partition.keySet());
  }
}
