package io.trellara.source.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.identity.ColumnType;
import io.trellara.identity.KeyEncoder;
import io.trellara.identity.OwnershipRouting;
import io.trellara.identity.RowIdentityDomain;
import io.trellara.identity.RowIdentityEncoder;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.SchemaVersions;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnDefinition;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.source.pg.CatalogKeyTypes;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.KafkaRecord;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TrellaraStack;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * One identity everywhere: a row read by the partitioned snapshot (COPY text) and the same row
 * streamed later (pgoutput text) get byte-identical row identities and the same lane, for every key
 * type routing accepts (enum, domain, domain over domain, array of enums and composite keys
 * included), although the source database's own settings would render every date, time, interval,
 * float and bytea differently ({@code ALTER DATABASE ... SET}, which any session that does not pin
 * its own sees). Both identities also equal the one built from the canonical text a session pinned
 * to the wire contract's settings reads, so neither path can be wrong in the same way as the other.
 */
@EitherPlatform
class PartitionedIdentityIT {
  static final TrellaraStack STACK = SourceConnectorIT.STACK;
  private static final int LANES = 4;

  /** Key type, then SQL literals of its values (each row's v is its position, from 1). */
  private static final List<List<String>> KEYS =
      List.of(
          List.of("bool", "true", "false"),
          List.of("int2", "1", "-7", "32767"),
          List.of("int4", "0", "-2147483648", "42"),
          List.of("int8", "9223372036854775807", "-1", "5"),
          List.of("oid", "1", "4294967295"),
          List.of("float4", "0.1", "3.14159274", "-1.5e-30"),
          List.of("float8", "0.1::float8 + 0.2", "-1e300", "'NaN'", "'-Infinity'"),
          List.of("numeric", "1.50", "-0.001", "123456789012345678901234567890.5"),
          List.of("text", "'tenant a'", "E'tab\\there'", "'ünïcode'"),
          List.of("varchar(20)", "'v1'", "'v 2'"),
          List.of("char(5)", "'ab'", "'abcde'"),
          List.of("bytea", "'\\x00ff10'", "'\\x'", "'plain'"),
          List.of("uuid", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "gen_random_uuid()"),
          List.of("date", "'2026-11-29'", "'infinity'", "'0044-03-15 BC'"),
          List.of("time", "'23:59:59.999999'", "'00:00'"),
          List.of("timestamp", "'2026-11-29 12:00:00.123456'", "'-infinity'"),
          List.of("timestamptz", "'2026-11-29 12:00:00+05:45'", "'1900-01-01 00:00:00-04:56:02'"),
          List.of("timetz", "'12:00:00+05:30'", "'12:00:00-03'"),
          List.of("interval", "'1 mon 2 days 03:04:05.5'", "'-1 year -2 hours'", "'30 days'"),
          List.of("inet", "'10.1.2.3/24'", "'::1'"),
          List.of("cidr", "'10.1.2.0/24'", "'2001:db8::/32'"),
          List.of("macaddr", "'08:00:2b:01:02:03'"),
          List.of("macaddr8", "'08:00:2b:01:02:03:04:05'"),
          List.of("bit(8)", "B'10100101'", "B'00000000'"),
          List.of("varbit", "B'1'", "B'0110'"),
          List.of("int4[]", "'{1,2,3}'", "'[0:1]={7,8}'"),
          List.of("timestamptz[]", "ARRAY['2026-01-01 00:00+01'::timestamptz, NULL]"),
          List.of("int4range", "'[1,10)'", "'empty'"),
          List.of("tstzrange", "'[2026-01-01 00:00+01,2026-02-01 00:00+01)'"),
          List.of("numrange", "'(1.5,2.50]'"),
          List.of("int4multirange", "'{[1,3),[5,8)}'"),
          List.of("jsonb", "'{\"b\": [1, 2.50], \"a\": \"x\"}'", "'[1e3, null]'"),
          List.of("mood", "'sad'", "'happy'", "'so-so'"),
          List.of("stamp", "'2026-11-29 12:00:00+05:45'", "'2031-06-01 00:00:00.5-03'"),
          List.of("day_off", "'10 days 02:00:00'"),
          List.of("mood[]", "ARRAY['sad', 'happy']::mood[]", "'{}'"),
          List.of("pair", "ROW(1, 'x')", "ROW(2, E'tab\\there \"quoted\"')", "ROW(NULL, '')"));

  /** The settings of the wire contract (PgEndpoint pins every source session to them). */
  private static final String[] CANONICAL = {
    "SET TimeZone = 'UTC'",
    "SET DateStyle = 'ISO'",
    "SET IntervalStyle = 'postgres'",
    "SET extra_float_digits = 3",
    "SET bytea_output = 'hex'"
  };

  private record Row(String table, long v) {}

  private record Seen(byte[] identity, int lane) {}

  @Test
  void snapshotAndStreamGiveEveryKeyTypeTheSameIdentityAndLaneUnderForeignSessionDefaults()
      throws Exception {
    try (TestScope scope = STACK.newScope("identity")) {
      PostgresDatabase db = scope.sourceDatabase();
      String dbName = "\"" + db.name().replace("\"", "\"\"") + "\"";
      db.execute(
          "ALTER DATABASE " + dbName + " SET DateStyle = 'SQL, DMY'",
          "ALTER DATABASE " + dbName + " SET IntervalStyle = 'sql_standard'",
          "ALTER DATABASE " + dbName + " SET TimeZone = 'Asia/Kathmandu'",
          "ALTER DATABASE " + dbName + " SET extra_float_digits = 0",
          "ALTER DATABASE " + dbName + " SET bytea_output = 'escape'",
          "CREATE TYPE mood AS ENUM ('sad', 'so-so', 'happy')",
          "CREATE DOMAIN stamp AS timestamptz CHECK (VALUE > '2000-01-01')",
          "CREATE DOMAIN inner_span AS interval",
          "CREATE DOMAIN day_off AS inner_span", // a domain over a domain
          "CREATE TYPE pair AS (a int, b text)");
      // a new session sees the database's settings unless it pins its own
      assertThat(db.queryString("SHOW IntervalStyle")).isEqualTo("sql_standard");
      assertThat(db.queryString("SHOW bytea_output")).isEqualTo("escape");
      assertThat(db.queryString("SHOW extra_float_digits")).isEqualTo("0");

      List<String> tables = new ArrayList<>();
      List<String> ddl = new ArrayList<>();
      for (int t = 0; t < KEYS.size(); t++) {
        String table = "k" + t;
        tables.add("public." + table);
        List<String> type = KEYS.get(t);
        ddl.add("CREATE TABLE " + table + " (k " + type.get(0) + " PRIMARY KEY, v int NOT NULL)");
        for (int i = 1; i < type.size(); i++) {
          ddl.add("INSERT INTO " + table + " VALUES (" + type.get(i) + ", " + i + ")");
        }
      }
      db.execute(ddl.toArray(String[]::new));

      String strict = scope.topic("strict");
      String lanes = scope.topic("lanes");
      SourceConnectorIT.deploy(
          scope,
          db,
          strict,
          String.join(",", tables),
          Map.of(
              "dataset.mode", "partitioned_scale_mode",
              "topic.partitioned", lanes,
              "dataset.partitioned.partition_count", Integer.toString(LANES),
              "snapshot.mode", "initial",
              "topic.creation.default.partitions", "-1",
              "topic.creation.default.replication.factor", "-1"));
      await().atMost(SourceConnectorIT.WAIT).until(() -> markers(strict) >= 1);

      List<String> updates = new ArrayList<>();
      for (int t = 0; t < KEYS.size(); t++) {
        updates.add("UPDATE k" + t + " SET v = v + 1000");
      }
      db.executeInTransaction(updates.toArray(String[]::new));
      await().atMost(SourceConnectorIT.WAIT).until(() -> markers(strict) >= 2);

      Map<Row, Seen> snapshot = new HashMap<>();
      Map<Row, Seen> stream = new HashMap<>();
      try (Connection catalog = db.connect()) {
        for (KafkaRecord r : STACK.broker().readAll(lanes)) {
          PartitionChunk chunk = TrellaraCodec.decodeChunk(r.value());
          assertThat(r.partition()).isEqualTo(chunk.getPartitionId());
          boolean fromSnapshot = chunk.getTransactionId().equals("snapshot");
          for (ChangeRecord c : chunk.getChangesList()) {
            SchemaVersion schema = SchemaVersions.of(c, chunk.getSchemaVersionsList());
            ColumnDefinition k = schema.getColumns(0);
            KeyEncoder encoder =
                RowIdentityEncoder.forColumns(
                    RowIdentityDomain.SCAN_KEY,
                    List.of(
                        CatalogKeyTypes.resolve(
                            catalog, (int) k.getTypeOid(), k.getTypeModifier())));
            byte[] identity = encoder.encodeStrings(c.getAfter().getColumns(0).getText());
            long v = Long.parseLong(c.getAfter().getColumns(1).getText());
            Row row = new Row(c.getRelation().getTable(), fromSnapshot ? v : v - 1000);
            assertThat(c.getOperation())
                .isEqualTo(fromSnapshot ? Operation.OPERATION_INSERT : Operation.OPERATION_UPDATE);
            assertThat(OwnershipRouting.partitionFor(identity, LANES))
                .as("%s routed by its identity", row)
                .isEqualTo(chunk.getPartitionId());
            (fromSnapshot ? snapshot : stream).put(row, new Seen(identity, chunk.getPartitionId()));
          }
        }

        Map<Row, byte[]> canonical = canonicalIdentities(catalog);
        assertThat(snapshot.keySet()).isEqualTo(canonical.keySet());
        assertThat(stream.keySet()).isEqualTo(canonical.keySet());
        for (Map.Entry<Row, byte[]> e : canonical.entrySet()) {
          Seen read = snapshot.get(e.getKey());
          Seen streamed = stream.get(e.getKey());
          assertThat(read.identity()).as("snapshot %s", e.getKey()).isEqualTo(e.getValue());
          assertThat(streamed.identity()).as("stream %s", e.getKey()).isEqualTo(e.getValue());
          assertThat(streamed.lane()).as("lane of %s", e.getKey()).isEqualTo(read.lane());
        }
        // several lanes carry rows, so the equal lanes are not all lane 0
        assertThat(snapshot.values().stream().map(Seen::lane).distinct().count()).isGreaterThan(1);
      }
    }
  }

  /** Each row's identity from the text a session pinned to the canonical settings reads. */
  private static Map<Row, byte[]> canonicalIdentities(Connection c) throws Exception {
    Map<Row, byte[]> out = new HashMap<>();
    try (Statement st = c.createStatement()) {
      for (String set : CANONICAL) {
        st.execute(set);
      }
      for (int t = 0; t < KEYS.size(); t++) {
        String table = "k" + t;
        try (ResultSet rs =
            st.executeQuery(
                "SELECT k::text, v - 1000, a.atttypid, a.atttypmod FROM "
                    + table
                    + " JOIN pg_attribute a ON a.attrelid = '"
                    + table
                    + "'::regclass AND a.attname = 'k'")) {
          List<Object[]> rows = new ArrayList<>();
          while (rs.next()) {
            rows.add(new Object[] {rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getInt(4)});
          }
          for (Object[] r : rows) {
            ColumnType type = CatalogKeyTypes.resolve(c, (int) (long) r[2], (int) r[3]);
            KeyEncoder encoder =
                RowIdentityEncoder.forColumns(RowIdentityDomain.SCAN_KEY, List.of(type));
            out.put(
                new Row(table, (long) r[1]),
                encoder.encode(new byte[][] {((String) r[0]).getBytes(StandardCharsets.UTF_8)}));
          }
        }
      }
    }
    return out;
  }

  private static long markers(String strict) {
    return STACK.broker().readAll(strict).stream()
        .filter(r -> "commit_marker".equals(r.headerAsString(MessageKind.HEADER)))
        .count();
  }
}
