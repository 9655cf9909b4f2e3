package io.trellara.source.connect;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Without kafka.bootstrap.servers the source cannot look at its topics, so it checks what Kafka
 * says of each record it holds ({@code SourceTask.commitRecord(record, metadata)}): the record is
 * on the topic and partition the source chose, at a known offset, and each partition's offsets grow
 * in the order the records were sent. A mismatch (a transform or a partitioner that moved a record,
 * a producer with {@code acks=0}, offsets out of order) is a named problem: the task acknowledges
 * nothing from that record on and stops at its next poll(). With kafka.bootstrap.servers the topics
 * were verified at start and nothing is checked here ({@link #NONE}).
 */
class AcknowledgementCheck {
  /** Checks nothing (the source verified its topics with its own Admin client). */
  static final AcknowledgementCheck NONE =
      new AcknowledgementCheck() {
        @Override
        String problem(SourceRecord r, RecordMetadata m) {
          return null;
        }
      };

  private final Map<String, Long> lastOffsets = new HashMap<>();

  /** The check the configuration calls for. */
  static AcknowledgementCheck of(TrellaraSourceConfig config) {
    return config.ownKafkaAccess() ? NONE : new AcknowledgementCheck();
  }

  /** Null when Kafka holds {@code r} where the source put it, else what is wrong. */
  synchronized String problem(SourceRecord r, RecordMetadata m) {
    String where = r.topic() + "-" + r.kafkaPartition();
    String got = m.topic() + "-" + m.partition() + "@" + m.offset();
    if (!r.topic().equals(m.topic())
        || r.kafkaPartition() == null
        || r.kafkaPartition() != m.partition()) {
      return refused(r, "was sent to " + where + " but Kafka acknowledged it as " + got);
    }
    if (!m.hasOffset() || m.offset() < 0) {
      return refused(
          r,
          "was acknowledged by Kafka without an offset on "
              + where
              + " (a producer with acks=0 learns nothing of where the record went): remove"
              + " producer.override.acks, or set it to all");
    }
    Long last = lastOffsets.get(where);
    if (last != null && m.offset() <= last) {
      return refused(
          r,
          "was acknowledged at "
              + got
              + ", not after the record acknowledged before it on that partition (offset "
              + last
              + "): the partition does not hold the records in the order they were sent");
    }
    lastOffsets.put(where, m.offset());
    return null;
  }

  private static String refused(SourceRecord r, String what) {
    return "ACKNOWLEDGEMENT_MISMATCH: the record of transaction "
        + r.key()
        + " "
        + what
        + ". Without kafka.bootstrap.servers the source checks each acknowledgement instead of"
        + " its topics; the task stops without acknowledging this transaction or any later one to"
        + " PostgreSQL, so the replication slot still holds them.";
  }
}
