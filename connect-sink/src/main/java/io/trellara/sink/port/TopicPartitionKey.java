package io.trellara.sink.port;

import java.util.Objects;

/**
 * A topic partition of the sink's input, without Kafka types: the key of a recorded progress
 * position.
 */
public record TopicPartitionKey(String topic, int partition) {
  public TopicPartitionKey {
    Objects.requireNonNull(topic, "topic");
    if (partition < 0) {
      throw new IllegalArgumentException("partition must be >= 0, was " + partition);
    }
  }

  @Override
  public String toString() {
    return topic + '-' + partition;
  }
}
