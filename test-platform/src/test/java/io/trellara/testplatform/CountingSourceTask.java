package io.trellara.testplatform;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/**
 * Task of {@link CountingSourceConnector}: up to 100 records per poll, source offset = next index.
 */
public class CountingSourceTask extends SourceTask {

  private static final Map<String, String> PARTITION = Map.of("source", "counting");

  private final CountDownLatch stopped = new CountDownLatch(1);
  private String topic;
  private long count;
  private long failAfter;
  private long next;

  @Override
  public void start(Map<String, String> props) {
    AbstractConfig config = new AbstractConfig(CountingSourceConnector.CONFIG, props);
    topic = config.getString(CountingSourceConnector.TOPIC);
    count = config.getLong(CountingSourceConnector.COUNT);
    failAfter = config.getLong(CountingSourceConnector.FAIL_AFTER);
    Map<String, Object> offset = context.offsetStorageReader().offset(PARTITION);
    next = offset == null ? 0 : ((Number) offset.get("next")).longValue();
  }

  @Override
  public List<SourceRecord> poll() throws InterruptedException {
    if (failAfter >= 0 && next >= failAfter) {
      throw new ConnectException("counting task failed on purpose after " + next + " records");
    }
    if (next >= count) {
      stopped.await(100, TimeUnit.MILLISECONDS); // idle: nothing more to emit
      return null;
    }
    List<SourceRecord> records = new ArrayList<>();
    long limit = Math.min(count, next + 100);
    if (failAfter >= 0) {
      limit = Math.min(limit, failAfter);
    }
    for (; next < limit; next++) {
      SourceRecord record =
          new SourceRecord(
              PARTITION,
              Map.of("next", next + 1),
              topic,
              null,
              Schema.BYTES_SCHEMA,
              ("k-" + next).getBytes(StandardCharsets.UTF_8),
              Schema.BYTES_SCHEMA,
              ("record-" + next).getBytes(StandardCharsets.UTF_8));
      record.headers().addString("seq", Long.toString(next));
      records.add(record);
    }
    return records;
  }

  @Override
  public void stop() {
    stopped.countDown();
  }

  @Override
  public String version() {
    return "test";
  }
}
