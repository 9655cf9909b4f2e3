package io.trellara.benchmarks.capture;

import static io.trellara.benchmarks.capture.PgOutputBytes.column;
import static io.trellara.benchmarks.capture.PgOutputBytes.cstring;
import static io.trellara.benchmarks.capture.PgOutputBytes.message;
import static io.trellara.benchmarks.capture.PgOutputBytes.text;

import io.trellara.source.pgoutput.PgOutputParser;
import io.trellara.source.replication.SourceSettings;
import io.trellara.source.replication.StrictPipeline;
import io.trellara.source.replication.TransactionPipeline;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The capture thread's own work for one W1 transaction (2 updates of {@code account}, 2 inserts
 * into {@code transfer}), without I/O: parse its pgoutput messages, assemble, and publish in each
 * boundary mode, on one long-lived pipeline as the engine runs it. µs per transaction. Run: java
 * -jar benchmarks/target/benchmarks.jar SmallTransactionBenchmark -prof gc
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SmallTransactionBenchmark {
  private static final int ACCOUNT = 16401;
  private static final int TRANSFER = 16402;

  @Param({"strict", "strict_chunked", "partitioned"})
  String mode;

  private PgOutputParser parser;
  private TransactionPipeline pipeline;
  private Blackhole sink;
  private long lsn = 0x5000_0000L;
  private int xid = 5000;
  private long transferId;

  @Setup
  public void setUp(Blackhole bh) throws IOException {
    sink = bh;
    SourceSettings settings = CaptureSettings.of(mode, 5_000, 256L << 20);
    parser = new PgOutputParser(1);
    pipeline = StrictPipeline.factory(settings).apply(sink::consume);
    feed(
        message(
            out -> {
              relation(out, ACCOUNT, "account");
              out.writeShort(2);
              column(out, true, "id", 23);
              column(out, false, "balance", 1700);
            }));
    feed(
        message(
            out -> {
              relation(out, TRANSFER, "transfer");
              out.writeShort(4);
              column(out, true, "id", 20);
              column(out, false, "src", 23);
              column(out, false, "dst", 23);
              column(out, false, "amount", 1700);
            }));
  }

  @TearDown
  public void tearDown() throws Exception {
    pipeline.close();
  }

  @Benchmark
  public void transfer() throws IOException {
    long begin = lsn;
    int a = 1 + (int) (transferId * 7919 % 1000);
    int b = 1 + (int) (transferId * 104729 % 1000);
    int x = ++xid;
    feed(
        message(
            out -> {
              out.write('B');
              out.writeLong(begin + 0x200);
              out.writeLong(800_000_000_000_000L);
              out.writeInt(x);
            }));
    feed(message(out -> update(out, a, "995.00")));
    feed(message(out -> update(out, b, "1005.00")));
    feed(message(out -> insert(out, ++transferId, a, b, "5")));
    feed(message(out -> insert(out, ++transferId, b, a, "0")));
    feed(
        message(
            out -> {
              out.write('C');
              out.write(0);
              out.writeLong(begin + 0x200);
              out.writeLong(begin + 0x230);
              out.writeLong(800_000_000_000_000L);
            }));
    lsn += 0x400;
  }

  private void feed(byte[] m) {
    ByteBuffer b = ByteBuffer.wrap(m);
    pipeline.accept(parser.parse(b.duplicate()), b, lsn);
  }

  private static void relation(DataOutputStream out, int id, String name) throws IOException {
    out.write('R');
    out.writeInt(id);
    cstring(out, "public");
    cstring(out, name);
    out.write('d');
  }

  private static void update(DataOutputStream out, int account, String balance) throws IOException {
    out.write('U');
    out.writeInt(ACCOUNT);
    out.write('N');
    out.writeShort(2);
    text(out, Integer.toString(account));
    text(out, balance);
  }

  private static void insert(DataOutputStream out, long id, int src, int dst, String amount)
      throws IOException {
    out.write('I');
    out.writeInt(TRANSFER);
    out.write('N');
    out.writeShort(4);
    text(out, Long.toString(id));
    text(out, Integer.toString(src));
    text(out, Integer.toString(dst));
    text(out, amount);
  }
}
