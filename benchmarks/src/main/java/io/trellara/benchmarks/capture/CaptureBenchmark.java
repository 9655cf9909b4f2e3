package io.trellara.benchmarks.capture;

import static io.trellara.benchmarks.capture.PgOutputBytes.column;
import static io.trellara.benchmarks.capture.PgOutputBytes.cstring;
import static io.trellara.benchmarks.capture.PgOutputBytes.message;
import static io.trellara.benchmarks.capture.PgOutputBytes.text;

import io.trellara.source.pgoutput.PgOutputParser;
import io.trellara.source.replication.SourceSettings;
import io.trellara.source.replication.StrictPipeline;
import io.trellara.source.replication.TransactionPipeline;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
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
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The source's capture path without I/O: parse pgoutput (protocol 1 bytes of one 10,000-insert
 * transaction on a 5-column table), assemble, and publish as one envelope (strict), as chunks +
 * manifest + marker (strict chunked, 1,000 per chunk, chunks encoded and checksummed) or routed
 * over 6 lanes (partitioned). Score = 10,000 rows per op; rows/s = ops/s x 10,000. Run: java -jar
 * benchmarks/target/benchmarks.jar CaptureBenchmark -prof gc
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CaptureBenchmark {
  static final int ROWS = 10_000;

  @Param({"strict", "strict_chunked", "partitioned"})
  String mode;

  @Param({"false", "true"})
  boolean spill;

  private List<byte[]> messages;
  private SourceSettings settings;

  @Setup
  public void setUp() throws IOException {
    messages = new ArrayList<>();
    messages.add(
        message(
            out -> {
              out.write('R');
              out.writeInt(16400);
              cstring(out, "public");
              cstring(out, "bulk");
              out.write('d');
              out.writeShort(5);
              column(out, true, "id", 20);
              column(out, false, "a", 23);
              column(out, false, "b", 25);
              column(out, false, "c", 1700);
              column(out, false, "d", 1184);
            }));
    messages.add(
        message(
            out -> {
              out.write('B');
              out.writeLong(0x5000_0000L);
              out.writeLong(800_000_000_000_000L);
              out.writeInt(4242);
            }));
    for (int i = 1; i <= ROWS; i++) {
      int row = i;
      messages.add(
          message(
              out -> {
                out.write('I');
                out.writeInt(16400);
                out.write('N');
                out.writeShort(5);
                text(out, Long.toString(row));
                text(out, Integer.toString(row % 1000));
                text(out, "5d41402abc4b2a76b9719d911017c592");
                text(out, row / 100 + ".25");
                text(out, "2026-11-30 01:00:00.123456+00");
              }));
    }
    messages.add(
        message(
            out -> {
              out.write('C');
              out.write(0);
              out.writeLong(0x5000_0000L);
              out.writeLong(0x5000_0030L);
              out.writeLong(800_000_000_000_000L);
            }));
    settings = CaptureSettings.of(mode, 1_000, spill ? 0 : 256L << 20);
  }

  @Benchmark
  public long capture(Blackhole bh) {
    PgOutputParser parser = new PgOutputParser(1);
    long[] records = new long[1];
    try (TransactionPipeline p =
        StrictPipeline.factory(settings)
            .apply(
                o -> {
                  bh.consume(o);
                  records[0]++;
                })) {
      for (byte[] m : messages) {
        ByteBuffer b = ByteBuffer.wrap(m);
        p.accept(parser.parse(b.duplicate()), b, 0x100);
      }
    }
    return records[0];
  }
}
