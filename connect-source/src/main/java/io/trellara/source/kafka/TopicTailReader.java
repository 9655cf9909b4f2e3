package io.trellara.source.kafka;

import io.trellara.protocol.MessageKind;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the tail of the source's topics backwards, in bounded steps, for {@link TailScan}: the
 * strict topic's partition 0 (envelopes, or chunks, manifests and commit markers in commit order)
 * until the newest closing record of this source, and in partitioned mode each lane's newest record
 * of this source. Bounded by a record budget per partition and one deadline for the whole read; a
 * step's values are reduced to their identity as they arrive, so memory holds no record. Uses the
 * brokers and client security settings of the source's Admin client ({@code
 * kafka.bootstrap.servers}, {@code kafka.admin.*}), reads committed records only, and joins no
 * consumer group.
 */
public final class TopicTailReader {
  private static final Logger LOG = LoggerFactory.getLogger(TopicTailReader.class);

  /** The first step back from the end; each further step doubles, up to {@link #MAX_STEP}. */
  static final int FIRST_STEP = 64;

  static final int MAX_STEP = 4_096;

  /**
   * Where to read and how much.
   *
   * @param clientConfig the Admin client's settings (bootstrap servers, security)
   * @param strictTopic the strict topic (its partition 0 is read)
   * @param partitionedTopic the partitioned topic in partitioned mode, else null
   * @param lanes its partition count
   * @param timeout the time the whole read may take
   * @param maxRecordsPerPartition the records read back at most from each partition
   */
  public record Settings(
      Map<String, Object> clientConfig,
      String strictTopic,
      String partitionedTopic,
      int lanes,
      Duration timeout,
      int maxRecordsPerPartition) {}

  private TopicTailReader() {}

  /** The tail of this source (never throws: a topic that cannot be read is {@code UNREADABLE}). */
  public static TopicTail read(Settings s, String sourceId, String slot) {
    long deadline = System.nanoTime() + s.timeout().toNanos();
    TailScan scan = new TailScan(sourceId, slot);
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(s, slot)) {
      TopicPartition strict = new TopicPartition(s.strictTopic(), 0);
      Range range = range(consumer, strict, deadline);
      boolean strictDone =
          range.isEmpty() || backwards(consumer, strict, range, s, deadline, scan::strict);
      boolean lanesDone = true;
      if (s.partitionedTopic() != null) {
        for (int lane = 0; lane < s.lanes(); lane++) {
          TopicPartition tp = new TopicPartition(s.partitionedTopic(), lane);
          Range r = range(consumer, tp, deadline);
          lanesDone &= r.isEmpty() || backwards(consumer, tp, r, s, deadline, scan::lane);
        }
      }
      String note =
          scan.scanned()
              + " record(s) read back from "
              + s.strictTopic()
              + "-0 (offsets "
              + range.begin
              + " to "
              + range.end
              + ")"
              + (s.partitionedTopic() == null
                  ? ""
                  : " and the " + s.lanes() + " lanes of " + s.partitionedTopic())
              + (strictDone && lanesDone ? "" : ", stopped by the scan's budget");
      return scan.result(range.isEmpty(), strictDone, lanesDone, note);
    } catch (KafkaException | IllegalStateException e) {
      LOG.debug("Reading the tail of {}", s.strictTopic(), e);
      return TopicTail.unreadable(
          "reading the tail of "
              + s.strictTopic()
              + " failed: "
              + e.getClass().getSimpleName()
              + ": "
              + e.getMessage());
    }
  }

  private record Range(long begin, long end) {
    boolean isEmpty() {
      return end <= begin;
    }
  }

  private static Range range(KafkaConsumer<byte[], byte[]> c, TopicPartition tp, long deadline) {
    Duration left = left(deadline);
    long begin = c.beginningOffsets(List.of(tp), left).getOrDefault(tp, 0L);
    long end = c.endOffsets(List.of(tp), left(deadline)).getOrDefault(tp, 0L);
    return new Range(begin, end);
  }

  /**
   * Feeds the records of {@code tp} to {@code accept} newest first, a step at a time, until it says
   * done; true when it did or the beginning was reached, false when the budget ran out first.
   */
  private static boolean backwards(
      KafkaConsumer<byte[], byte[]> c,
      TopicPartition tp,
      Range range,
      Settings s,
      long deadline,
      Predicate<TailScan.Entry> accept) {
    c.assign(List.of(tp));
    long cursor = range.end;
    int step = FIRST_STEP;
    long read = 0;
    while (cursor > range.begin) {
      if (read >= s.maxRecordsPerPartition() || System.nanoTime() >= deadline) {
        return false;
      }
      long from = Math.max(range.begin, cursor - step);
      List<TailScan.Entry> window = fetch(c, tp, from, cursor, deadline);
      if (window == null) {
        return false;
      }
      for (int i = window.size() - 1; i >= 0; i--) {
        read++;
        if (accept.test(window.get(i))) {
          return true;
        }
      }
      cursor = from;
      step = Math.min(step * 2, MAX_STEP);
    }
    return true;
  }

  /** The entries of offsets [from, to) in offset order; null when the deadline passed first. */
  private static List<TailScan.Entry> fetch(
      KafkaConsumer<byte[], byte[]> c, TopicPartition tp, long from, long to, long deadline) {
    c.seek(tp, from);
    List<TailScan.Entry> out = new ArrayList<>();
    while (c.position(tp, left(deadline)) < to) {
      if (System.nanoTime() >= deadline) {
        return null;
      }
      for (ConsumerRecord<byte[], byte[]> r :
          c.poll(Duration.ofMillis(Math.min(200, left(deadline).toMillis() + 1))).records(tp)) {
        if (r.offset() >= from && r.offset() < to) {
          out.add(entry(r));
        }
      }
    }
    return out;
  }

  static TailScan.Entry entry(ConsumerRecord<byte[], byte[]> r) {
    String where = r.topic() + "-" + r.partition() + "@" + r.offset();
    OffsetHeaders.Stamp stamp = OffsetHeaders.read(name -> lastHeader(r.headers(), name));
    if (stamp != null) {
      return new TailScan.Entry(where, stamp, null);
    }
    Header kind = r.headers().lastHeader(MessageKind.HEADER);
    MessageKind k = null;
    if (kind != null && kind.value() != null) {
      try {
        k = MessageKind.fromWireBytes(kind.value());
      } catch (IllegalArgumentException e) {
        k = null; // told from the bytes
      }
    }
    return new TailScan.Entry(where, null, MessageIdentity.read(k, r.value()));
  }

  private static String lastHeader(Headers headers, String name) {
    Header h = headers.lastHeader(name);
    return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  private static KafkaConsumer<byte[], byte[]> consumer(Settings s, String slot) {
    Map<String, Object> config = new HashMap<>(s.clientConfig());
    config.put(ConsumerConfig.CLIENT_ID_CONFIG, "trellara-source-tail-" + slot);
    config.remove(ConsumerConfig.GROUP_ID_CONFIG);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    config.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
    config.putIfAbsent(
        ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG,
        (int) Math.min(30_000, Math.max(1_000, s.timeout().toMillis())));
    config.putIfAbsent(
        ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
        (int) Math.max(1_000, s.timeout().toMillis()));
    return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  private static Duration left(long deadline) {
    return Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
  }
}
