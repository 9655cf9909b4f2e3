package io.trellara.benchmarks.e2e.floor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * Counts closing records (an envelope or a commit marker, by the kind header) and writes {@code
 * progress.file} with the count at {@code report.at} transactions and again at {@code
 * transactions}, so the benchmark, in another JVM, can read the worker's CPU around exactly the
 * measured ones.
 */
public class FloorSinkTask extends SinkTask {
  private Path progress;
  private long reportAt;
  private long transactions;
  private long closed;

  @Override
  public void start(Map<String, String> props) {
    progress = Path.of(props.get("progress.file"));
    reportAt = Long.parseLong(props.get("report.at"));
    transactions = Long.parseLong(props.get("transactions"));
  }

  @Override
  public void put(Collection<SinkRecord> records) {
    for (SinkRecord r : records) {
      Header kind = r.headers().lastWithName(FloorShape.KIND);
      if (kind != null && FloorShape.closes(String.valueOf(kind.value()))) {
        closed++;
        if (closed == reportAt || closed == transactions) {
          try {
            Files.writeString(progress, Long.toString(closed));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      }
    }
  }

  @Override
  public void stop() {}

  @Override
  public String version() {
    return "bench";
  }
}
