package io.trellara.converter;

import io.trellara.protocol.codec.ReceivedBytes;
import io.trellara.protocol.validation.ProtocolViolationException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkConnector;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * Test-only sink: keeps every value the converter handed over, in this JVM, read as a task reads
 * the converter's {@link ReceivedBytes} (decoded through the one codec; a violation fails the
 * task).
 */
public class CollectingSink extends SinkConnector {
  static final ConcurrentLinkedQueue<Object> RECEIVED = new ConcurrentLinkedQueue<>();
  private Map<String, String> props;

  @Override
  public void start(Map<String, String> props) {
    this.props = props;
  }

  @Override
  public Class<? extends Task> taskClass() {
    return CollectingTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return List.of(props);
  }

  @Override
  public void stop() {}

  @Override
  public org.apache.kafka.common.config.ConfigDef config() {
    return new org.apache.kafka.common.config.ConfigDef();
  }

  @Override
  public String version() {
    return "test";
  }

  public static class CollectingTask extends SinkTask {
    @Override
    public void start(Map<String, String> props) {}

    @Override
    public void put(Collection<SinkRecord> records) {
      for (SinkRecord r : records) {
        if (r.value() instanceof ReceivedBytes b) {
          try {
            RECEIVED.add(b.decode());
          } catch (ProtocolViolationException e) {
            throw new DataException("Trellara message rejected: " + e.getMessage(), e);
          }
        } else {
          RECEIVED.add(r.value());
        }
      }
    }

    @Override
    public void stop() {}

    @Override
    public String version() {
      return "test";
    }
  }
}
