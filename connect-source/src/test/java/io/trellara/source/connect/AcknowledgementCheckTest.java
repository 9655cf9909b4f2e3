package io.trellara.source.connect;

import static io.trellara.source.connect.BrokerlessRulesTest.brokerless;
import static io.trellara.source.connect.TrellaraSourceConfigTest.valid;
import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/** Without brokers, each acknowledgement must put the record where it was sent, in order. */
class AcknowledgementCheckTest {
  private final AcknowledgementCheck check =
      AcknowledgementCheck.of(new TrellaraSourceConfig(brokerless()));

  private static SourceRecord sent(String topic, int partition) {
    return new SourceRecord(null, null, topic, partition, null, "src:0/1:771", null, new byte[1]);
  }

  private static RecordMetadata acked(String topic, int partition, long offset) {
    return new RecordMetadata(new TopicPartition(topic, partition), offset, 0, 0L, 1, 1);
  }

  @Test
  void recordsAcknowledgedWhereTheyWereSentInOrderPass() {
    assertThat(check.problem(sent("flow.strict", 0), acked("flow.strict", 0, 0))).isNull();
    assertThat(check.problem(sent("flow.lanes", 3), acked("flow.lanes", 3, 7))).isNull();
    // transactional markers and aborted records leave gaps: a later offset is fine
    assertThat(check.problem(sent("flow.strict", 0), acked("flow.strict", 0, 5))).isNull();
    assertThat(check.problem(sent("flow.lanes", 3), acked("flow.lanes", 3, 8))).isNull();
  }

  @Test
  void aRecordAcknowledgedOnAnotherPartitionOrTopicIsRefusedByName() {
    assertThat(check.problem(sent("flow.lanes", 2), acked("flow.lanes", 1, 0)))
        .startsWith("ACKNOWLEDGEMENT_MISMATCH")
        .contains("src:0/1:771", "was sent to flow.lanes-2", "acknowledged it as flow.lanes-1@0");
    assertThat(check.problem(sent("flow.strict", 0), acked("renamed", 0, 0)))
        .contains("acknowledged it as renamed-0@0");
  }

  @Test
  void anAcknowledgementWithoutAnOffsetIsRefused() {
    assertThat(check.problem(sent("flow.strict", 0), acked("flow.strict", 0, -1)))
        .contains("without an offset", "acks=0");
  }

  @Test
  void anOffsetNotAfterThePreviousOneOfItsPartitionIsRefused() {
    assertThat(check.problem(sent("flow.strict", 0), acked("flow.strict", 0, 4))).isNull();
    assertThat(check.problem(sent("flow.strict", 0), acked("flow.strict", 0, 4)))
        .contains("acknowledged at flow.strict-0@4", "offset 4", "order they were sent");
    assertThat(check.problem(sent("flow.strict", 0), acked("flow.strict", 0, 2)))
        .contains("offset 4");
  }

  @Test
  void withTheBrokersSetNothingIsCheckedAsBefore() {
    AcknowledgementCheck withBrokers = AcknowledgementCheck.of(new TrellaraSourceConfig(valid()));
    assertThat(withBrokers).isSameAs(AcknowledgementCheck.NONE);
    assertThat(withBrokers.problem(sent("flow.strict", 0), acked("other", 9, -1))).isNull();
  }
}
