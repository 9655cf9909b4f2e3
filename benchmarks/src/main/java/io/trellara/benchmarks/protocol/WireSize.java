package io.trellara.benchmarks.protocol;

import static io.trellara.benchmarks.capture.PgOutputBytes.cstring;
import static io.trellara.benchmarks.capture.PgOutputBytes.message;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.EncodedMessage;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.source.capture.ddl.CapturedTables;
import io.trellara.source.pgoutput.PgOutputParser;
import io.trellara.source.replication.BoundarySettings;
import io.trellara.source.replication.Outbound;
import io.trellara.source.replication.SourceSettings;
import io.trellara.source.replication.StrictPipeline;
import io.trellara.source.replication.TransactionPipeline;
import io.trellara.source.routing.KeyChangePolicy;
import io.trellara.source.routing.NullKeyPolicy;
import io.trellara.source.routing.OwnershipKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

/**
 * Bytes on the wire per row, through the real capture path (pgoutput protocol 1 bytes in, what the
 * source publishes out): a W1 transaction (2 updates of {@code account(id int PK, balance bigint)}
 * + 2 inserts into {@code transfer(id bigserial PK, src int, dst int, amount int)}) as one strict
 * envelope, and one full chunk of the W2 bulk insert ({@code bulk(id bigint PK, a int, b text, c
 * numeric(12,2), d timestamptz)}) in strict chunked order at the default 1,000,000-byte chunk
 * bound. Values look like the benchmark workloads'. Run: java -cp benchmarks/target/benchmarks.jar
 * io.trellara.benchmarks.protocol.WireSize
 */
public final class WireSize {
  private static final int ACCOUNT = 16500;
  private static final int TRANSFER = 16501;
  private static final int BULK = 16502;
  private static final int NUMERIC_12_2 = (12 << 16 | 2) + 4;

  private WireSize() {}

  public static void main(String[] args) throws IOException {
    List<byte[]> w1 = new ArrayList<>();
    w1.add(
        relation(
            ACCOUNT, "account", new Col(true, "id", 23, -1), new Col(false, "balance", 20, -1)));
    w1.add(
        relation(
            TRANSFER,
            "transfer",
            new Col(true, "id", 20, -1),
            new Col(false, "src", 23, -1),
            new Col(false, "dst", 23, -1),
            new Col(false, "amount", 23, -1)));
    w1.add(begin());
    w1.add(row('U', ACCOUNT, "17", "999995"));
    w1.add(row('U', ACCOUNT, "842", "1000005"));
    w1.add(row('I', TRANSFER, "123457", "17", "842", "5"));
    w1.add(row('I', TRANSFER, "123458", "842", "17", "0"));
    w1.add(commit());
    List<Outbound> strict = capture(w1, BoundarySettings.strict());
    TransactionEnvelope e = (TransactionEnvelope) strict.get(0).value();
    int w1Bytes = TrellaraCodec.encode(e).bytes().length;
    System.out.printf(
        "W1 envelope (2 updates + 2 inserts): %d bytes, %.1f bytes per row%n",
        w1Bytes, w1Bytes / 4.0);

    int rows = 20_000;
    List<byte[]> w2 = new ArrayList<>();
    w2.add(
        relation(
            BULK,
            "bulk",
            new Col(true, "id", 20, -1),
            new Col(false, "a", 23, -1),
            new Col(false, "b", 25, -1),
            new Col(false, "c", 1700, NUMERIC_12_2),
            new Col(false, "d", 1184, -1)));
    w2.add(begin());
    for (int g = 1; g <= rows; g++) {
      w2.add(
          row(
              'I',
              BULK,
              Integer.toString(g),
              Integer.toString(g % 1000),
              md5Like(g),
              String.format("%d.%02d", g / 100, g % 100),
              "2026-12-01 16:31:07.123456+00"));
    }
    w2.add(commit());
    List<Outbound> chunked =
        capture(
            w2,
            new BoundarySettings(
                false,
                1_000_000,
                1_000_000,
                0,
                OwnershipKeys.none(),
                NullKeyPolicy.ROUTE_TO_SINGLETON_PARTITION,
                KeyChangePolicy.EMIT_MOVE));
    EncodedMessage first = (EncodedMessage) chunked.get(0).value();
    int chunkRows = TrellaraCodec.decodeChunk(first.bytes()).getChangesCount();
    System.out.printf(
        "W2 chunk (bulk insert, 1,000,000-byte bound): %d rows in %d bytes, %.1f bytes per row;"
            + " %d rows took %d chunks%n",
        chunkRows,
        first.bytes().length,
        first.bytes().length / (double) chunkRows,
        rows,
        chunked.stream().filter(o -> o.kind() == MessageKind.CHUNK).count());
  }

  private static List<Outbound> capture(List<byte[]> messages, BoundarySettings boundary)
      throws IOException {
    SourceSettings settings =
        new SourceSettings(
            null,
            "pg-bench",
            "bench-db",
            "bench-flow",
            "slot",
            "pub",
            false,
            List.of(),
            1,
            false,
            1000,
            600_000,
            0,
            true,
            false,
            Files.createTempDirectory("wire-size"),
            256L << 20,
            256 << 20,
            1024,
            1L << 30,
            boundary,
            CapturedTables.NONE);
    List<Outbound> out = new ArrayList<>();
    PgOutputParser parser = new PgOutputParser(1);
    try (TransactionPipeline p = StrictPipeline.factory(settings).apply(out::add)) {
      for (byte[] m : messages) {
        ByteBuffer b = ByteBuffer.wrap(m);
        p.accept(parser.parse(b.duplicate()), b, 0x100);
      }
    }
    return out;
  }

  private record Col(boolean key, String name, int type, int typmod) {}

  private static byte[] relation(int oid, String table, Col... cols) throws IOException {
    return message(
        out -> {
          out.write('R');
          out.writeInt(oid);
          cstring(out, "public");
          cstring(out, table);
          out.write('d');
          out.writeShort(cols.length);
          for (Col c : cols) {
            out.write(c.key ? 1 : 0);
            cstring(out, c.name);
            out.writeInt(c.type);
            out.writeInt(c.typmod);
          }
        });
  }

  private static byte[] begin() throws IOException {
    return message(
        out -> {
          out.write('B');
          out.writeLong(0x2_A1B3_C4D8L);
          out.writeLong(818_000_000_000_000L);
          out.writeInt(1_234_567);
        });
  }

  private static byte[] commit() throws IOException {
    return message(
        out -> {
          out.write('C');
          out.write(0);
          out.writeLong(0x2_A1B3_C4D8L);
          out.writeLong(0x2_A1B3_C508L);
          out.writeLong(818_000_000_000_000L);
        });
  }

  /**
   * An insert ('I') or an update without an old tuple ('U', the key did not change), every value as
   * text.
   */
  private static byte[] row(char kind, int oid, String... values) throws IOException {
    return message(
        out -> {
          out.write(kind);
          out.writeInt(oid);
          out.write('N');
          out.writeShort(values.length);
          for (String v : values) {
            byte[] b = v.getBytes(StandardCharsets.UTF_8);
            out.write('t');
            out.writeInt(b.length);
            out.write(b);
          }
        });
  }

  /** 32 hex digits, like md5(g::text). */
  private static String md5Like(int g) {
    return String.format("%016x%016x", g * 0x9E3779B97F4A7C15L, ~g * 0xC2B2AE3D27D4EB4FL);
  }
}
