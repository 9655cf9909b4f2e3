package io.trellara.benchmarks.identity;

import io.trellara.identity.ColumnType;
import io.trellara.identity.KeyEncoder;
import io.trellara.identity.RowIdentityDomain;
import io.trellara.identity.RowIdentityEncoder;
import io.trellara.identity.RowIdentityProbe;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import net.openhft.hashing.LongHashFunction;
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
 * Row identity per row, from pgoutput text values (UTF-8 bytes): the V1-style baseline (each field
 * as a String, joined with a delimiter, hashed to 64 bits) against the V2 identity and the V2
 * identity plus its probe (which computes the xxh3-128 digest when the identity exceeds 256 bytes).
 * Run: java -jar benchmarks/target/benchmarks.jar RowIdentityBenchmark -prof gc
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RowIdentityBenchmark {
  @Param({
    "int8",
    "uuid",
    "compositeInts",
    "shortTextComposite",
    "longTextComposite",
    "wideKeylessRow"
  })
  String shape;

  private static final LongHashFunction XXH3 = LongHashFunction.xx3();

  KeyEncoder encoder;
  byte[][] values;

  @Setup(Level.Trial)
  public void setUp() {
    List<ColumnType> types = new ArrayList<>();
    List<String> texts = new ArrayList<>();
    RowIdentityDomain domain = RowIdentityDomain.SCAN_KEY;
    switch (shape) {
      case "int8" -> add(types, texts, 20, "8123456789012");
      case "uuid" -> add(types, texts, 2950, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
      case "compositeInts" -> {
        add(types, texts, 23, "42");
        add(types, texts, 23, "-7");
        add(types, texts, 20, "1234567890123");
      }
      case "shortTextComposite" -> {
        add(types, texts, 23, "1001");
        add(types, texts, 25, "customer");
        add(types, texts, 1043, "eu-west-1");
      }
      case "longTextComposite" -> {
        add(types, texts, 25, "tenant-" + "x".repeat(300));
        add(types, texts, 25, "path/" + "y".repeat(200));
      }
      case "wideKeylessRow" -> {
        domain = RowIdentityDomain.KEYLESS_ROW;
        for (int i = 0; i < 6; i++) {
          add(types, texts, 20, Long.toString(1_000_000_007L * i));
          add(types, texts, 25, "value number " + i + " with some words");
          add(types, texts, 1700, "12345.67" + i);
          add(types, texts, 1184, "2024-01-02 03:04:05.12345" + i + "+00");
          add(types, texts, 16, i % 2 == 0 ? "t" : "f");
        }
      }
      default -> throw new IllegalArgumentException(shape);
    }
    encoder = RowIdentityEncoder.forColumns(domain, types);
    values = new byte[texts.size()][];
    for (int i = 0; i < values.length; i++) {
      values[i] = texts.get(i).getBytes(StandardCharsets.UTF_8);
    }
    byte[] id = encoder.encode(values);
    System.out.printf(
        "%n[%s: %d fields, identity %d bytes, probe %d bytes]%n",
        shape, values.length, id.length, RowIdentityProbe.probe(id).length);
  }

  private static void add(List<ColumnType> types, List<String> texts, int oid, String text) {
    types.add(ColumnType.of(oid));
    texts.add(text);
  }

  /** V1 style: every field becomes a String, joined with a delimiter, hashed to 64 bits. */
  @Benchmark
  public long v1TextJoinHash() {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < values.length; i++) {
      if (i > 0) {
        sb.append('\u001F');
      }
      byte[] v = values[i];
      sb.append(v == null ? "\\N" : new String(v, StandardCharsets.UTF_8));
    }
    return XXH3.hashChars(sb);
  }

  @Benchmark
  public byte[] v2Identity() {
    return encoder.encode(values);
  }

  @Benchmark
  public byte[] v2IdentityAndProbe() {
    return RowIdentityProbe.probe(encoder.encode(values));
  }
}
