package io.trellara.benchmarks.protocol;

import io.trellara.protocol.auth.AuthHeader;
import io.trellara.protocol.auth.AuthKey;
import io.trellara.protocol.auth.RecordMac;
import io.trellara.protocol.auth.RecordVerifier;
import java.util.List;
import java.util.Random;
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
 * Record authentication's cost per record: signing (the source task: MAC input, HMAC-SHA-256, the
 * header) and verifying (the sink task: header parse, key lookup, HMAC, constant-time compare) of 1
 * kB and 64 kB record values, on one thread's reused Mac. Run: java -jar
 * benchmarks/target/benchmarks.jar RecordAuthBenchmark -wi 2 -i 3 -f 1 -prof gc
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RecordAuthBenchmark {
  static final String TOPIC = "trellara.pg-main.strict";

  @Param({"1024", "65536"})
  int bytes;

  AuthKey key;
  RecordVerifier verifier;
  byte[] value;
  byte[] header;

  @Setup(Level.Trial)
  public void setUp() {
    key = AuthKey.ofText("k1", "a-benchmark-secret-of-32-bytes!!");
    verifier = new RecordVerifier(List.of(key, AuthKey.ofText("k2", "another-secret-0123")), false);
    value = new byte[bytes];
    new Random(7).nextBytes(value);
    header = RecordMac.sign(key, TOPIC, 0, value);
  }

  @Benchmark
  public byte[] sign() {
    return RecordMac.sign(key, TOPIC, 0, value);
  }

  @Benchmark
  public String verify() {
    return verifier.verify(TOPIC, 0, value, header);
  }

  /** The header parse alone (what a refusal of a malformed header costs). */
  @Benchmark
  public Object parseHeader() {
    return AuthHeader.parse(header);
  }
}
