package io.trellara.source.connect;

import io.trellara.protocol.Snapshots;
import io.trellara.source.replication.Outbound;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.apache.kafka.connect.source.TransactionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the task ends Kafka transactions when it defines them itself (KIP-618: the worker's {@code
 * exactly.once.source.support=enabled} and the connector's {@code transaction.boundary=connector};
 * otherwise Connect gives no transaction context and this does nothing).
 *
 * <p>A streamed source transaction is one Kafka transaction: its envelope, or all its chunks, its
 * manifest and its commit marker, committed at the record that closes it, which is also the record
 * whose source offset Connect writes in that same Kafka transaction. A crash therefore leaves
 * either the whole source transaction and its offset in Kafka, or neither.
 *
 * <p>The snapshot is the exception: it can be far larger than any Kafka transaction may stay open
 * ({@code transaction.timeout.ms}), so each of its chunks is committed as a Kafka transaction of
 * its own, under the offset {@code snapshot=running}; its manifest and marker close it with the
 * streaming offset. A crash mid-snapshot leaves committed chunks without a manifest, which is what
 * an interrupted snapshot leaves without exactly-once too: the task snapshots again and the sink
 * drops them (docs/snapshot.md).
 *
 * <p>Connect calls the task's commitRecord only once the Kafka transaction holding the record has
 * committed, so WAL is never acknowledged to PostgreSQL for records an abort discards.
 */
final class KafkaTransactionBoundaries {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaTransactionBoundaries.class);

  /** Null when Connect defines the boundaries (poll, interval) or exactly-once is off. */
  private final TransactionContext context;

  KafkaTransactionBoundaries(TransactionContext context) {
    this.context = context;
  }

  static KafkaTransactionBoundaries of(SourceTaskContext taskContext, String connector) {
    TransactionContext context = taskContext.transactionContext();
    if (context != null) {
      LOG.info("Source task {}: one Kafka transaction per source transaction", connector);
    }
    return new KafkaTransactionBoundaries(context);
  }

  /** Whether this task ends Kafka transactions (transaction.boundary=connector). */
  boolean defined() {
    return context != null;
  }

  /** Called for each record in the order poll() returns them. */
  void returned(Outbound o, SourceRecord record) {
    if (context == null) {
      return;
    }
    if (o.closesTransaction() || Snapshots.isSnapshot(o.key().transactionId())) {
      context.commitTransaction(record);
    }
  }
}
