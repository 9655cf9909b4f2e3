package io.trellara.source.connect;

import org.apache.kafka.connect.source.SourceRecord;

/** What the task says when Kafka Connect reports one of its records as skipped. */
final class SkippedRecord {
  private SkippedRecord() {}

  static String message(SourceRecord r) {
    return "Kafka did not receive a record of transaction "
        + r.key()
        + " (topic "
        + r.topic()
        + (r.kafkaPartition() == null ? "" : ", partition " + r.kafkaPartition())
        + "): Kafka Connect reported it as skipped, which happens when a failed send is tolerated"
        + " (errors.tolerance) or a transform drops it. The task stops without acknowledging this"
        + " transaction or any later one to PostgreSQL, so the replication slot still holds them."
        + " Remove errors.tolerance and transforms from the source, fix the failed send named in"
        + " the worker log (e.g. RecordTooLargeException: the topic's max.message.bytes or"
        + " producer.override.max.request.size), then restart the task.";
  }
}
