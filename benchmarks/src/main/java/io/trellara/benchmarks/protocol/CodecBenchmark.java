package io.trellara.benchmarks.protocol;

import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.sample.SampleTransactions;
import io.trellara.protocol.v1.TransactionEnvelope;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Encode+checksum (validate, serialise once, hash once) and verify+decode (raw checksum scan,
 * parse, validate) of 1-, 100- and 10,000-change envelopes. MB/s = bytes per op x ops/s (printed by
 * the setup). Run: java -jar benchmarks/target/benchmarks.jar CodecBenchmark -prof gc
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CodecBenchmark {
  @Param({"1", "100", "10000"})
  int changes;

  TransactionEnvelope envelope;
  byte[] bytes;

  @Setup(Level.Trial)
  public void setUp() {
    // the sample adds an update and a delete to its inserts once it has two or more
    envelope = SampleTransactions.envelope(changes <= 2 ? 1 : changes - 2, false);
    bytes = TrellaraCodec.encode(envelope).bytes();
    System.out.printf(
        "%n[envelope: %d changes, %d bytes]%n", envelope.getChangesCount(), bytes.length);
  }

  @Benchmark
  public byte[] encodeAndChecksum() {
    return TrellaraCodec.encode(envelope).bytes();
  }

  @Benchmark
  public Object verifyAndDecode() {
    return TrellaraCodec.decodeEnvelope(bytes);
  }

  @Benchmark
  public long checksumOnly() {
    return TrellaraCodec.verifyChecksum(io.trellara.protocol.MessageKind.ENVELOPE, bytes);
  }
}
