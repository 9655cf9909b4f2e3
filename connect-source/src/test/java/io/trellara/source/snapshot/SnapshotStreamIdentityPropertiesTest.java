package io.trellara.source.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.identity.ColumnType;
import io.trellara.identity.OwnershipRouting;
import io.trellara.identity.PgTypes;
import io.trellara.identity.RowIdentityDomain;
import io.trellara.identity.RowIdentityEncoder;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.RowImage;
import io.trellara.source.capture.CaptureEventSink;
import io.trellara.source.capture.RelationSchema;
import io.trellara.source.capture.SyntheticStream;
import io.trellara.source.pgoutput.PgOutputMessage;
import io.trellara.source.routing.KeyChangePolicy;
import io.trellara.source.routing.NullKeyPolicy;
import io.trellara.source.routing.OwnershipKeys;
import io.trellara.source.routing.OwnershipRouter;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * One identity everywhere, without a server: the snapshot carries a key as COPY's text row (escaped
 * by COPY, unescaped by {@link SnapshotEvents}), the stream as pgoutput's length-prefixed text
 * tuple ({@code CapturedEventFactory} copies the bytes verbatim); both then reach the one function
 * that encodes identities, the {@link OwnershipRouter}'s row identity encoder. So what must hold is
 * that both paths hand the router the same bytes for the same value: checked here for values of
 * every key type family (strings full of COPY's special characters included: tabs, newlines,
 * backslashes, control characters, non-ASCII), as byte-identical identities and the same lane. The
 * server side (both sessions render with the same pinned settings, whatever the database's own) is
 * {@code PartitionedIdentityIT}'s.
 */
class SnapshotStreamIdentityPropertiesTest {
  private static final int LANES = 4;
  private static final long TABLE_OID = 16_384;
  private static final int ENUM_OID = 70_001;
  private static final int DOMAIN_OID = 70_002;

  /** A key type and one value of it in the text its output function writes. */
  record Case(ColumnType type, String text) {}

  @Property(tries = 600)
  void aKeyReadByTheSnapshotAndStreamedGetsTheSameIdentityAndLane(
      @ForAll("keys") Case c, @ForAll boolean owned) {
    List<ChangeRecord> changes = new ArrayList<>();
    List<RelationSchema> relations = new ArrayList<>();
    SnapshotEvents snapshot =
        new SnapshotEvents(
            "src",
            0x1_0000L,
            new CaptureEventSink() {
              @Override
              public void onChange(ChangeRecord change, RelationSchema relation) {
                changes.add(change);
                relations.add(relation);
              }

              @Override
              public void onDdl(DdlEvent ddl) {
                throw new AssertionError("a snapshot has no DDL");
              }
            });
    snapshot.table(
        new SnapshotTable(
            TABLE_OID,
            "public",
            "t",
            'd',
            false,
            10,
            null,
            List.of(
                new SnapshotTable.Column("k", c.type().typeOid(), c.type().typmod(), true),
                new SnapshotTable.Column("v", PgTypes.INT4, -1, false)),
            List.of()));
    byte[] row = copyRow(c.text(), "1");
    snapshot.row(row, row.length, owned);
    ChangeRecord read = changes.get(0);

    PgOutputMessage.Insert insert =
        (PgOutputMessage.Insert) SyntheticStream.insert(0, TABLE_OID, c.text(), "1");
    ChangeRecord streamed =
        ChangeRecord.newBuilder(read)
            .setOperation(Operation.OPERATION_INSERT)
            .setAfter(
                RowImage.newBuilder()
                    .addColumns(text(insert.newTuple().valueBytes(0)))
                    .addColumns(text(insert.newTuple().valueBytes(1))))
            .build();

    byte[] expected = c.text().getBytes(StandardCharsets.UTF_8);
    assertThat(read.getAfter().getColumns(0).getTextBytes().toByteArray()).isEqualTo(expected);
    assertThat(streamed.getAfter().getColumns(0).getTextBytes().toByteArray()).isEqualTo(expected);

    byte[] fromSnapshot = identity(c.type(), read);
    byte[] fromStream = identity(c.type(), streamed);
    assertThat(fromSnapshot).isEqualTo(fromStream);

    OwnershipRouter router =
        new OwnershipRouter(
            LANES,
            OwnershipKeys.none(),
            NullKeyPolicy.QUARANTINE,
            KeyChangePolicy.EMIT_MOVE,
            (oid, typmod) -> c.type());
    int[] lanes = new int[2];
    router.route(read, relations.get(0), (p, x) -> lanes[0] = p);
    router.route(streamed, relations.get(0), (p, x) -> lanes[1] = p);
    assertThat(lanes[1]).isEqualTo(lanes[0]);
    assertThat(lanes[0]).isEqualTo(OwnershipRouting.partitionFor(fromSnapshot, LANES));
  }

  private static ColumnValue text(byte[] b) {
    return ColumnValue.newBuilder()
        .setState(ColumnState.COLUMN_STATE_VALUE)
        .setTextBytes(com.google.protobuf.ByteString.copyFrom(b))
        .build();
  }

  private static byte[] identity(ColumnType type, ChangeRecord c) {
    byte[] v = c.getAfter().getColumns(0).getTextBytes().toByteArray();
    return RowIdentityEncoder.forColumns(RowIdentityDomain.SCAN_KEY, List.of(type))
        .encode(new byte[][] {v});
  }

  /**
   * A row as {@code COPY ... TO STDOUT} (text format) writes it: PostgreSQL's CopyAttributeOutText
   * writes a backslash for a backslash, the letter escapes for BS, FF, LF, CR, TAB and VT, and
   * every other byte (other control characters, UTF-8 sequences) as it is.
   */
  static byte[] copyRow(String... fields) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int f = 0; f < fields.length; f++) {
      if (f > 0) {
        out.write('\t');
      }
      for (byte b : fields[f].getBytes(StandardCharsets.UTF_8)) {
        String escape =
            switch (b) {
              case '\\' -> "\\\\";
              case '\b' -> "\\b";
              case '\f' -> "\\f";
              case '\n' -> "\\n";
              case '\r' -> "\\r";
              case '\t' -> "\\t";
              case 0x0B -> "\\v";
              default -> null;
            };
        if (escape == null) {
          out.write(b);
        } else {
          out.writeBytes(escape.getBytes(StandardCharsets.US_ASCII));
        }
      }
    }
    out.write('\n');
    return out.toByteArray();
  }

  /** Any string PostgreSQL can store in text: no NUL, COPY's specials and non-ASCII likely. */
  private static Arbitrary<String> anyText() {
    return Arbitraries.oneOf(
            Arbitraries.of('\t', '\n', '\r', '\\', '\b', '\f', (char) 0x0B, (char) 1, '"', ','),
            Arbitraries.chars().range((char) 0x20, (char) 0x7E),
            Arbitraries.chars().range('\u00A0', '\u07FF'),
            Arbitraries.of('\u20AC', '\uFFFD'))
        .list()
        .ofMaxSize(24)
        .map(
            l -> {
              StringBuilder s = new StringBuilder();
              l.forEach(s::append);
              return s.toString();
            });
  }

  private static Arbitrary<Case> of(int oid, Arbitrary<String> text) {
    return text.map(t -> new Case(ColumnType.of(oid), t));
  }

  /**
   * Array literal quoting, as array_out does: every element quoted, {@code "} and {@code \}
   * escaped.
   */
  private static String arrayOf(List<String> elements) {
    StringBuilder s = new StringBuilder("{");
    for (int i = 0; i < elements.size(); i++) {
      s.append(i == 0 ? "" : ",")
          .append('"')
          .append(elements.get(i).replace("\\", "\\\\").replace("\"", "\\\""))
          .append('"');
    }
    return s.append('}').toString();
  }

  private static String jsonString(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char ch : s.toCharArray()) {
      switch (ch) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\t' -> b.append("\\t");
        case '\r' -> b.append("\\r");
        case '\b' -> b.append("\\b");
        case '\f' -> b.append("\\f");
        default -> {
          if (ch < 0x20) {
            b.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
          } else {
            b.append(ch);
          }
        }
      }
    }
    return b.append('"').toString();
  }

  private static String hex(byte[] b) {
    StringBuilder s = new StringBuilder("\\x");
    for (byte x : b) {
      s.append(String.format(Locale.ROOT, "%02x", x & 0xFF));
    }
    return s.toString();
  }

  @Provide
  Arbitrary<Case> keys() {
    Arbitrary<String> text = anyText();
    Arbitrary<Integer> hour = Arbitraries.integers().between(0, 23);
    Arbitrary<Integer> minute = Arbitraries.integers().between(0, 59);
    Arbitrary<Integer> micros = Arbitraries.integers().between(0, 999_999);
    Arbitrary<String> time =
        Combinators.combine(hour, minute, minute, micros)
            .as((h, m, s, u) -> String.format(Locale.ROOT, "%02d:%02d:%02d.%06d", h, m, s, u));
    Arbitrary<String> date =
        Combinators.combine(
                Arbitraries.integers().between(1, 9999),
                Arbitraries.integers().between(1, 12),
                Arbitraries.integers().between(1, 28))
            .as((y, mo, d) -> String.format(Locale.ROOT, "%04d-%02d-%02d", y, mo, d));
    Arbitrary<String> offset =
        Combinators.combine(Arbitraries.of("+", "-"), Arbitraries.integers().between(0, 14), minute)
            .as((sg, h, m) -> String.format(Locale.ROOT, "%s%02d:%02d", sg, h, m));
    return Arbitraries.oneOf(
        of(PgTypes.INT2, Arbitraries.shorts().map(String::valueOf)),
        of(PgTypes.INT4, Arbitraries.integers().map(String::valueOf)),
        of(PgTypes.INT8, Arbitraries.longs().map(String::valueOf)),
        of(26 /* oid */, Arbitraries.longs().between(0, 4_294_967_295L).map(String::valueOf)),
        of(700 /* float4 */, Arbitraries.floats().map(String::valueOf)),
        of(701 /* float8 */, Arbitraries.doubles().map(String::valueOf)),
        of(
            PgTypes.NUMERIC,
            Arbitraries.bigDecimals()
                .between(new BigDecimal("-1e30"), new BigDecimal("1e30"))
                .ofScale(6)
                .map(BigDecimal::toPlainString)),
        of(PgTypes.TEXT, text),
        of(PgTypes.VARCHAR, text),
        of(PgTypes.BPCHAR, text),
        of(PgTypes.BYTEA, Arbitraries.bytes().array(byte[].class).ofMaxSize(32).map(b -> hex(b))),
        of(2950 /* uuid */, Arbitraries.create(UUID::randomUUID).map(UUID::toString)),
        of(PgTypes.DATE, date),
        of(PgTypes.TIME, time),
        of(PgTypes.TIMESTAMP, Combinators.combine(date, time).as((d, t) -> d + " " + t)),
        of(
            PgTypes.TIMESTAMPTZ,
            Combinators.combine(date, time, offset).as((d, t, o) -> d + " " + t + o)),
        of(PgTypes.TIMETZ, Combinators.combine(time, offset).as((t, o) -> t + o)),
        of(
            PgTypes.INTERVAL,
            Combinators.combine(
                    Arbitraries.integers().between(-999, 999),
                    Arbitraries.integers().between(-999, 999),
                    time)
                .as((mo, d, t) -> mo + " mons " + d + " days " + t)),
        of(1009 /* text[] */, text.list().ofMaxSize(4).map(l -> arrayOf(l))),
        of(
            PgTypes.JSONB,
            Combinators.combine(text, text)
                .as((k, v) -> "{" + jsonString(k) + ": " + jsonString(v) + "}")),
        text.filter(t -> !t.isEmpty() && t.length() <= 63)
            .map(t -> new Case(ColumnType.enumType(ENUM_OID, "mood"), t)),
        text.map(t -> new Case(ColumnType.domain(DOMAIN_OID, PgTypes.TEXT, -1), t)),
        Combinators.combine(date, time, offset)
            .as(
                (d, t, o) ->
                    new Case(
                        ColumnType.domain(DOMAIN_OID, PgTypes.TIMESTAMPTZ, -1), d + " " + t + o)));
  }
}
