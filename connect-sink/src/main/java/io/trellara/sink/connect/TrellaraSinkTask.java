package io.trellara.sink.connect;

import io.trellara.connect.common.PluginVersion;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.sink.buffer.Input;
import io.trellara.sink.connect.metrics.SinkTaskMetrics;
import io.trellara.sink.engine.SinkEngine;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.TransactionApplier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * Thin adapter over the {@link SinkEngine}: verified messages in (through TrellaraConverter, or
 * verified here for ByteArrayConverter), the engine's seeks, pauses and recheck requests out to
 * Connect's {@code SinkTaskContext}, Kafka offsets committed only up to what the engine says is
 * durable, and the engine's failures as Connect's.
 */
public class TrellaraSinkTask extends SinkTask {
  /** Added to each task's config by the connector; names the task's JMX bean. */
  static final String TASK_ID = "trellara.task.id";

  private TransactionApplier applier;
  private SinkEngine engine;
  private SinkTaskMetrics metrics;
  private RecordAuthenticator authenticator;

  @Override
  public String version() {
    return PluginVersion.VERSION;
  }

  @Override
  public void start(Map<String, String> props) {
    SinkTaskParts parts = SinkTaskParts.start(props, consumer());
    applier = parts.applier();
    engine = parts.engine();
    metrics = parts.metrics();
    authenticator = parts.authenticator();
  }

  @Override
  public void open(Collection<TopicPartition> partitions) {
    try {
      engine.open(partitions.stream().map(TrellaraSinkTask::key).toList());
    } catch (ApplyException e) {
      throw new ConnectException(
          "Cannot claim the assigned partitions and read the sink's progress in the"
              + " target: "
              + e.getMessage(),
          e);
    }
  }

  @Override
  public void close(Collection<TopicPartition> partitions) {
    if (engine != null) {
      engine.close(partitions.stream().map(TrellaraSinkTask::key).toList());
    }
  }

  @Override
  public void put(Collection<SinkRecord> records) {
    List<Input> inputs = new ArrayList<>(records.size());
    DataException rejected = null;
    for (SinkRecord r : records) {
      try {
        authenticator.check(r); // before the engine sees anything of it
        inputs.add(RecordInputs.input(r));
      } catch (DataException e) {
        rejected = e; // what came before the bad record is whole and verified: take it, then stop
        break;
      }
    }
    try {
      engine.put(inputs);
    } catch (Input.RejectedException e) {
      throw new DataException(e.getMessage(), e.getCause());
    } catch (ApplyException | ProtocolViolationException e) {
      throw new ConnectException(e.getMessage(), e);
    }
    if (rejected != null) {
      throw rejected;
    }
  }

  /**
   * Kafka offsets only up to what the engine says is durable (the target's progress says where a
   * task resumes).
   */
  @Override
  public Map<TopicPartition, OffsetAndMetadata> preCommit(
      Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
    Map<TopicPartitionKey, Long> durable = engine == null ? Map.of() : engine.committable();
    Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
    for (Map.Entry<TopicPartition, OffsetAndMetadata> e : currentOffsets.entrySet()) {
      Long position = durable.get(key(e.getKey()));
      if (position != null) {
        out.put(e.getKey(), new OffsetAndMetadata(Math.min(position, e.getValue().offset())));
      }
    }
    return out;
  }

  /** The engine's requests, as Connect's consumer takes them. */
  private SinkEngine.Consumer consumer() {
    return new SinkEngine.Consumer() {
      @Override
      public void seek(TopicPartitionKey partition, long offset) {
        context.offset(partition(partition), offset);
      }

      @Override
      public void pause(List<TopicPartitionKey> partitions) {
        context.pause(
            partitions.stream().map(TrellaraSinkTask::partition).toArray(TopicPartition[]::new));
      }

      @Override
      public void resume(List<TopicPartitionKey> partitions) {
        context.resume(
            partitions.stream().map(TrellaraSinkTask::partition).toArray(TopicPartition[]::new));
      }

      @Override
      public void callAgainWithin(long millis) {
        context.timeout(millis);
      }

      @Override
      public Collection<TopicPartitionKey> assignment() {
        return context.assignment().stream().map(TrellaraSinkTask::key).toList();
      }
    };
  }

  private static TopicPartitionKey key(TopicPartition tp) {
    return new TopicPartitionKey(tp.topic(), tp.partition());
  }

  private static TopicPartition partition(TopicPartitionKey k) {
    return new TopicPartition(k.topic(), k.partition());
  }

  @Override
  public void stop() {
    if (engine != null) {
      engine.close();
    }
    if (metrics != null) {
      metrics.close();
    }
    if (applier != null) {
      applier.close();
    }
  }
}
