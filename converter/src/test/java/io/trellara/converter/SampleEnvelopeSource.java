package io.trellara.converter;

import io.trellara.protocol.sample.SampleTransactions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/**
 * Test-only source: emits {@code count} sample envelopes as protobuf objects, for the converter to
 * encode.
 */
public class SampleEnvelopeSource extends SourceConnector {
  private Map<String, String> props;

  @Override
  public void start(Map<String, String> props) {
    this.props = props;
  }

  @Override
  public Class<? extends Task> taskClass() {
    return SampleTask.class;
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

  public static class SampleTask extends SourceTask {
    private String topic;
    private int remaining;

    @Override
    public void start(Map<String, String> props) {
      topic = props.get("topic");
      remaining = Integer.parseInt(props.get("count"));
    }

    @Override
    public List<SourceRecord> poll() {
      if (remaining == 0) {
        return null;
      }
      List<SourceRecord> out = new ArrayList<>();
      while (remaining > 0) {
        int n = remaining--;
        out.add(
            new SourceRecord(
                Map.of("s", "1"),
                Map.of("n", n),
                topic,
                0,
                Schema.STRING_SCHEMA,
                "tx-" + n,
                null,
                SampleTransactions.envelope(n, n % 2 == 0)));
      }
      return out;
    }

    @Override
    public void stop() {}

    @Override
    public String version() {
      return "test";
    }
  }
}
