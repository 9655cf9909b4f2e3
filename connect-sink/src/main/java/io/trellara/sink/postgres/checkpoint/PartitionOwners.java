package io.trellara.sink.postgres.checkpoint;

import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.session.TargetSession;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fencing: which task of a sink owns each input partition, in {@code
 * trellara_sink.partition_owners}. A task claims its partitions when Kafka assigns them ({@link
 * #claimAndRead}); every progress write share-locks the owner rows of its partitions and is refused
 * as {@link ApplyException.Reason#FENCED} once another task claimed them (the fence of {@link
 * AppliedRecords#record}). A claim row, not an advisory lock held for as long as a task owns the
 * partition: a hung owner would hold that until its session died (docs/operations.md).
 */
public final class PartitionOwners {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(PartitionOwners.class);

  /** How long one claim attempt waits for a commit of the previous owner in progress. */
  static final long LOCK_TIMEOUT_MILLIS = 10_000;

  /** The owner rows of some partitions. */
  private static final String OWNERS =
      """
            SELECT o.topic, o.kafka_partition, o.owner, o.claimed_at::text FROM trellara_sink.partition_owners o
              JOIN unnest(?::text[], ?::int[]) AS f(tp, p) ON o.topic = f.tp AND o.kafka_partition = f.p
             WHERE o.sink_name = ? ORDER BY o.topic, o.kafka_partition""";

  /** ... locked: a claim waits here for the previous owner's commit in progress to end. */
  private static final String LOCK_OWNERS = OWNERS + " FOR UPDATE OF o";

  private static final String CLAIM =
      """
            INSERT INTO trellara_sink.partition_owners (sink_name, topic, kafka_partition, owner)
            SELECT ?, tp, p, ? FROM unnest(?::text[], ?::int[]) AS u(tp, p)
            ON CONFLICT (sink_name, topic, kafka_partition)
            DO UPDATE SET owner = EXCLUDED.owner, claimed_at = pg_catalog.now()""";

  private PartitionOwners() {}

  /**
   * {@code who} (e.g. "my-sink task 0") on this worker process, with a random suffix unique per
   * task start.
   */
  public static String ownerName(String who) {
    return who
        + " on "
        + java.lang.management.ManagementFactory.getRuntimeMXBean().getName()
        + " ("
        + java.util.UUID.randomUUID().toString().substring(0, 8)
        + ")";
  }

  /**
   * The claim's unit of work: {@link #claim} (waiting at most {@value #LOCK_TIMEOUT_MILLIS} ms for
   * a commit of the previous owner in progress; longer is retried as a serialization failure), then
   * the progress recorded for {@code partitions}, read after it. The earlier owners are logged once
   * it has committed.
   */
  public static Claimed claimAndRead(
      TargetSession s, String sinkName, String owner, List<TopicPartitionKey> partitions)
      throws SQLException {
    List<Owner> previous;
    try {
      s.execute("SET LOCAL lock_timeout = '" + LOCK_TIMEOUT_MILLIS + "ms'");
      previous = claim(s, sinkName, owner, partitions);
    } catch (SQLException e) {
      if (!"55P03".equals(e.getSQLState())) {
        throw e;
      }
      // the previous owner is inside a commit into these partitions (or hangs there): retried
      throw new SQLException(
          "a transaction of the previous owner of "
              + partitions
              + " still holds their"
              + " progress after "
              + LOCK_TIMEOUT_MILLIS
              + " ms: "
              + e.getMessage(),
          "40001",
          e);
    }
    Map<TopicPartitionKey, Long> all = CheckpointStore.positions(s, sinkName);
    Map<TopicPartitionKey, Long> out = new LinkedHashMap<>();
    for (TopicPartitionKey p : partitions) {
      if (all.containsKey(p)) {
        out.put(p, all.get(p));
      }
    }
    return new Claimed(
        out,
        () ->
            previous.forEach(
                o ->
                    LOG.info(
                        "Sink {}: {} took over {} (previous owner {} since {})",
                        sinkName,
                        owner,
                        o.partition(),
                        o.owner(),
                        o.claimedAt())));
  }

  /**
   * What a claim read: the progress recorded for the claimed partitions, and what to log once the
   * claim has committed (the earlier owners it took them from).
   */
  public record Claimed(Map<TopicPartitionKey, Long> positions, Runnable afterCommit) {}

  /** The claims of others than {@code owner} on {@code partitions}. */
  public static List<String> claimsByOthers(
      TargetSession session, String sinkName, String owner, List<TopicPartitionKey> partitions)
      throws SQLException {
    String[] topics = partitions.stream().map(TopicPartitionKey::topic).toArray(String[]::new);
    Integer[] numbers =
        partitions.stream().map(TopicPartitionKey::partition).toArray(Integer[]::new);
    return owners(session, sinkName, topics, numbers, false).values().stream()
        .filter(o -> !o.owner().equals(owner))
        .map(Owner::toString)
        .sorted()
        .toList();
  }

  /** Who holds the partitions this task wrote progress for but no longer owns. */
  static ApplyException fenced(
      TargetSession session, String sinkName, String owner, String[] topics, Integer[] partitions)
      throws SQLException {
    StringBuilder others = new StringBuilder();
    for (Owner o : owners(session, sinkName, topics, partitions, false).values()) {
      if (!o.owner().equals(owner)) {
        others.append(others.length() == 0 ? "" : "; ").append(o);
      }
    }
    return new ApplyException(
        ApplyException.Reason.FENCED,
        null,
        session.eventKey(),
        null,
        owner
            + " no longer owns the partition(s) it applied: "
            + others
            + ". Another task took"
            + " them over (Kafka assigned them elsewhere while this task was busy, or a second deployment of this"
            + " sink writes the same target); nothing of this target transaction was committed",
        null);
  }

  /** The claim of one partition: who holds it, since when. */
  record Owner(TopicPartitionKey partition, String owner, String claimedAt) {
    @Override
    public String toString() {
      return partition + " claimed by " + owner + " at " + claimedAt;
    }
  }

  private static Map<TopicPartitionKey, Owner> owners(
      TargetSession session, String sinkName, String[] topics, Integer[] partitions, boolean lock)
      throws SQLException {
    PreparedStatement ps = session.prepare(lock ? LOCK_OWNERS : OWNERS);
    ps.setArray(1, session.array("text", topics));
    ps.setArray(2, session.array("int4", partitions));
    ps.setString(3, sinkName);
    Map<TopicPartitionKey, Owner> out = new HashMap<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        TopicPartitionKey k = new TopicPartitionKey(rs.getString(1), rs.getInt(2));
        out.put(k, new Owner(k, rs.getString(3), rs.getString(4)));
      }
    }
    return out;
  }

  /**
   * Makes {@code owner} the owner of {@code partitions} (one task of {@code sinkName} at a time),
   * in the caller's open transaction, and returns the earlier claims by others. It waits while a
   * transaction of the previous owner that writes their progress is still open, so the progress
   * read after it (in a later statement) holds everything that owner committed; from then on that
   * owner's commits into them are refused ({@link AppliedRecords#record}).
   */
  private static List<Owner> claim(
      TargetSession session, String sinkName, String owner, List<TopicPartitionKey> partitions)
      throws SQLException {
    String[] topics = partitions.stream().map(TopicPartitionKey::topic).toArray(String[]::new);
    Integer[] numbers =
        partitions.stream().map(TopicPartitionKey::partition).toArray(Integer[]::new);
    List<Owner> previous =
        owners(session, sinkName, topics, numbers, true).values().stream()
            .filter(o -> !o.owner().equals(owner))
            .toList();
    PreparedStatement ps = session.prepare(CLAIM);
    ps.setString(1, sinkName);
    ps.setString(2, owner);
    ps.setArray(3, session.array("text", topics));
    ps.setArray(4, session.array("int4", numbers));
    ps.executeUpdate();
    return previous;
  }
}
