package io.trellara.source.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.junit.jupiter.api.Test;

class TrellaraSourceTaskTest {

  private static TransactionRecords.TransactionRecord record(long sequence, String key) {
    return new TransactionRecords.TransactionRecord(
        Map.of(), Map.of(), "strict", 0, key, new byte[0], 0L, new ConnectHeaders(), sequence);
  }

  private static RecordMetadata held() {
    return new RecordMetadata(new TopicPartition("strict", 0), 0, 0, 0, 0, 0);
  }

  /**
   * A task whose records of three one-record transactions were handed out, watching what it
   * acknowledges.
   */
  private static TrellaraSourceTask taskWithThreeTransactions(List<Long> acknowledged)
      throws Exception {
    TrellaraSourceTask task = new TrellaraSourceTask();
    task.acknowledgeWal = acknowledged::add;
    var acks = TrellaraSourceTask.class.getDeclaredField("acks");
    acks.setAccessible(true);
    io.trellara.source.replication.ack.AckTracker tracker =
        (io.trellara.source.replication.ack.AckTracker) acks.get(task);
    tracker.sent(1, 100);
    tracker.sent(2, 200);
    tracker.sent(3, 300);
    return task;
  }

  @Test
  void recordsKafkaHoldsAreAcknowledgedInOrder() throws Exception {
    List<Long> acknowledged = new ArrayList<>();
    TrellaraSourceTask task = taskWithThreeTransactions(acknowledged);
    task.commitRecord(record(1, "tx-1"), held());
    task.commitRecord(record(2, "tx-2"), held());
    assertThat(acknowledged).containsExactly(100L, 200L);
  }

  @Test
  void aSkippedRecordStopsAcknowledgementAndTheNextPollFailsNamingItsTransaction()
      throws Exception {
    List<Long> acknowledged = new ArrayList<>();
    TrellaraSourceTask task = taskWithThreeTransactions(acknowledged);
    task.commitRecord(record(1, "tx-1"), held());
    task.commitRecord(record(2, "s/d/0/0:ABC/742"), null);
    task.commitRecord(record(3, "tx-3"), held());

    assertThat(acknowledged).containsExactly(100L);
    assertThatThrownBy(task::poll)
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("transaction s/d/0/0:ABC/742")
        .hasMessageContaining("reported it as skipped")
        .hasMessageContaining("without acknowledging this transaction or any later one")
        .hasMessageContaining("Remove errors.tolerance and transforms");
    assertThatThrownBy(task::poll).isInstanceOf(ConnectException.class);
  }

  @Test
  void withoutBrokersAMisplacedAcknowledgementStopsAcknowledgementAndTheNextPollFails()
      throws Exception {
    List<Long> acknowledged = new ArrayList<>();
    TrellaraSourceTask task = taskWithThreeTransactions(acknowledged);
    var check = TrellaraSourceTask.class.getDeclaredField("ackCheck");
    check.setAccessible(true);
    check.set(
        task, AcknowledgementCheck.of(new TrellaraSourceConfig(BrokerlessRulesTest.brokerless())));
    task.commitRecord(
        record(1, "tx-1"), new RecordMetadata(new TopicPartition("strict", 0), 5, 0, 0, 0, 0));
    task.commitRecord(
        record(2, "tx-2"), new RecordMetadata(new TopicPartition("strict", 1), 6, 0, 0, 0, 0));
    task.commitRecord(
        record(3, "tx-3"), new RecordMetadata(new TopicPartition("strict", 0), 7, 0, 0, 0, 0));

    assertThat(acknowledged).containsExactly(100L);
    assertThatThrownBy(task::poll)
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("ACKNOWLEDGEMENT_MISMATCH: the record of transaction tx-2")
        .hasMessageContaining("was sent to strict-0 but Kafka acknowledged it as strict-1@6");
  }
}
