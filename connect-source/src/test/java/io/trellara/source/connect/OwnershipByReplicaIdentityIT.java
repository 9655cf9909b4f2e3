package io.trellara.source.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.identity.ColumnType;
import io.trellara.identity.OwnershipRouting;
import io.trellara.identity.PgTypes;
import io.trellara.identity.RowIdentityDomain;
import io.trellara.identity.RowIdentityEncoder;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.RowImage;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.KafkaRecord;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TrellaraStack;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Partitioned scale mode routed by a non-key, nullable {@code tenant_id} on a real PostgreSQL,
 * through a real worker, with 4 lanes: REPLICA IDENTITY FULL (and USING INDEX on an index holding
 * the primary key and a NOT NULL tenant) carries the tenant in deletes and ownership changes; every
 * null-key policy places real NULL rows, from the snapshot and from the stream, as the
 * specification says; a DEFAULT identity is refused naming the ALTER TABLE that fixes it.
 */
@EitherPlatform
class OwnershipByReplicaIdentityIT {
  static final TrellaraStack STACK = SourceConnectorIT.STACK;
  static final Duration WAIT = Duration.ofSeconds(90);
  static final int LANES = 4;

  private static String header(KafkaRecord r, String name) {
    byte[] v = r.header(name);
    return v == null ? null : new String(v, StandardCharsets.UTF_8);
  }

  private static long markers(String strict) {
    return STACK.broker().readAll(strict).stream()
        .filter(r -> "commit_marker".equals(header(r, MessageKind.HEADER)))
        .count();
  }

  /** xxh3_64 of the bigint's row identity V2 SCAN_KEY bytes, mod 4: the lane of a value. */
  private static int laneOf(String bigint) {
    byte[] id =
        RowIdentityEncoder.forColumns(
                RowIdentityDomain.SCAN_KEY, List.of(ColumnType.of(PgTypes.INT8, -1)))
            .encode(new byte[][] {bigint.getBytes(StandardCharsets.UTF_8)});
    return OwnershipRouting.partitionFor(id, LANES);
  }

  private static String text(RowImage image, int position) {
    ColumnValue v = image.getColumns(position);
    return v.getState() == ColumnState.COLUMN_STATE_VALUE ? v.getText() : null;
  }

  private static Map<String, String> partitioned(String lanes, String policy, String tables) {
    return Map.of(
        "dataset.mode",
        "partitioned_scale_mode",
        "topic.partitioned",
        lanes,
        "dataset.partitioned.partition_count",
        Integer.toString(LANES),
        "dataset.partitioned.ownership_keys",
        tables,
        "dataset.partitioned.null_key_policy",
        policy,
        "dataset.partitioned.key_change_policy",
        "emit_move");
  }

  /**
   * One routed row change as published: its lane, operation, and id and tenant it was routed by.
   */
  record Routed(int lane, Operation op, String table, String id, String tenant) {}

  private static List<Routed> routed(String lanesTopic) {
    List<Routed> out = new ArrayList<>();
    for (KafkaRecord r : STACK.broker().readAll(lanesTopic)) {
      PartitionChunk chunk = TrellaraCodec.decodeChunk(r.value());
      assertThat(chunk.getPartitionId()).isEqualTo(r.partition());
      for (ChangeRecord c : chunk.getChangesList()) {
        if (c.getOperation() == Operation.OPERATION_TRUNCATE) {
          continue;
        }
        RowImage image =
            c.getOperation() == Operation.OPERATION_DELETE ? c.getBefore() : c.getAfter();
        out.add(
            new Routed(
                r.partition(),
                c.getOperation(),
                c.getRelation().getTable(),
                text(image, 0),
                text(image, 1)));
      }
    }
    return out;
  }

  @Test
  void everyNullKeyPolicyPlacesRealNullTenantsAsTheSpecificationSays() {
    for (String policy :
        List.of(
            "route_to_singleton_partition",
            "route_to_dead_letter_partition",
            "derive_from_primary_key")) {
      try (TestScope scope = STACK.newScope("nullTenant")) {
        PostgresDatabase db = scope.sourceDatabase();
        db.execute(
            "CREATE TABLE acct (id bigint PRIMARY KEY, tenant_id bigint, note text)",
            "ALTER TABLE acct REPLICA IDENTITY FULL",
            "CREATE TABLE member (id bigint PRIMARY KEY, tenant_id bigint NOT NULL, note text)",
            "CREATE UNIQUE INDEX member_owner ON member (id, tenant_id)",
            "ALTER TABLE member REPLICA IDENTITY USING INDEX member_owner",
            // the snapshot's rows: half of them without a tenant
            "INSERT INTO acct SELECT g, CASE WHEN g % 2 = 0 THEN NULL ELSE g % 7 END, 's'"
                + " FROM generate_series(1, 40) g",
            "INSERT INTO member SELECT g, g % 5, 's' FROM generate_series(1, 10) g");
        String strict = scope.createTopic("strict", 1);
        String lanes = scope.createTopic("lanes", LANES);
        SourceConnectorIT.deploy(
            scope,
            db,
            strict,
            "public.acct,public.member",
            partitioned(lanes, policy, "public.acct:tenant_id, public.member:tenant_id"));
        await().atMost(WAIT).until(() -> markers(strict) == 1); // the snapshot
        db.execute(
            "INSERT INTO acct SELECT g, NULL, 'n' FROM generate_series(101, 140) g",
            "UPDATE acct SET note = 'u' WHERE id BETWEEN 101 AND 110", // stays NULL
            "DELETE FROM acct WHERE id BETWEEN 111 AND 120", // deletes of NULL rows
            "UPDATE acct SET tenant_id = 3 WHERE id BETWEEN 121 AND 130", // NULL -> 3
            "UPDATE acct SET tenant_id = NULL WHERE id BETWEEN 1 AND 9 AND id % 2 = 1", // -> NULL
            "DELETE FROM acct WHERE id = 11", // a delete with a tenant (FULL: the old row)
            "UPDATE member SET tenant_id = tenant_id + 1 WHERE id <= 4", // moves (old key: K)
            "DELETE FROM member WHERE id = 10"); // a delete by the index's key image
        await().atMost(WAIT).until(() -> markers(strict) == 9);

        List<Routed> all = routed(lanes);
        assertThat(all).filteredOn(r -> r.tenant() == null).hasSizeGreaterThan(60);
        Set<Integer> nullLanes = new HashSet<>();
        for (Routed r : all) {
          int expected;
          if (r.tenant() != null) {
            expected = laneOf(r.tenant());
          } else {
            expected =
                switch (policy) {
                  case "route_to_singleton_partition" -> 0;
                  case "route_to_dead_letter_partition" -> LANES - 1;
                  default -> laneOf(r.id()); // the primary key, read from the catalog
                };
            nullLanes.add(r.lane());
          }
          assertThat(r.lane()).as(policy + " " + r).isEqualTo(expected);
        }
        if (policy.equals("derive_from_primary_key")) {
          assertThat(nullLanes).as("the primary key's lanes, not partition 0").hasSize(LANES);
        }
        // deletes carried the tenant (FULL: the old row; USING INDEX: the index's key image)
        assertThat(all)
            .filteredOn(r -> r.op() == Operation.OPERATION_DELETE && r.tenant() != null)
            .extracting(Routed::table, Routed::id)
            .contains(
                org.assertj.core.groups.Tuple.tuple("acct", "11"),
                org.assertj.core.groups.Tuple.tuple("member", "10"));
        // every row that changed tenant across lanes moved: a delete in the old lane, an insert
        // in the new
        long moves =
            all.stream()
                .filter(
                    r ->
                        r.table().equals("member")
                            && r.op() == Operation.OPERATION_DELETE
                            && !r.id().equals("10"))
                .count();
        long memberMovesExpected = 0;
        for (int id = 1; id <= 4; id++) {
          if (laneOf(Integer.toString(id % 5)) != laneOf(Integer.toString(id % 5 + 1))) {
            memberMovesExpected++;
          }
        }
        assertThat(moves).isEqualTo(memberMovesExpected);
      }
    }
  }

  @Test
  void quarantineStopsTheTaskAtARealNullTenantAndPublishesNothingOfIt() {
    try (TestScope scope = STACK.newScope("quarantineTenant")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute(
          "CREATE TABLE acct (id bigint PRIMARY KEY, tenant_id bigint, note text)",
          "ALTER TABLE acct REPLICA IDENTITY FULL");
      String strict = scope.createTopic("strict", 1);
      String lanes = scope.createTopic("lanes", LANES);
      Map<String, String> extra =
          new HashMap<>(partitioned(lanes, "quarantine", "public.acct:tenant_id"));
      extra.put("snapshot.mode", "never");
      String name = SourceConnectorIT.deploy(scope, db, strict, "public.acct", extra);
      db.execute("INSERT INTO acct VALUES (1, 5, 'with a tenant')");
      await().atMost(WAIT).until(() -> markers(strict) == 1);
      db.execute("INSERT INTO acct VALUES (2, NULL, 'no tenant'), (3, 6, 'x')");
      String trace = STACK.rest().awaitFailed(name).firstTrace();
      assertThat(trace).contains("null_ownership_key", "public.acct", "quarantine");
      assertThat(markers(strict)).isEqualTo(1);
      assertThat(routed(lanes)).extracting(Routed::id).containsExactly("1");
    }
  }

  @Test
  void validateRefusesATenantTheReplicaIdentityDoesNotCarryNamingTheAlterTable() {
    try (TestScope scope = STACK.newScope("tenantValidate")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute(
          "CREATE TABLE acct (id bigint PRIMARY KEY, tenant_id bigint, note text)",
          "CREATE TABLE \"Member\" (id bigint PRIMARY KEY, tenant_id bigint NOT NULL)",
          "CREATE UNIQUE INDEX \"Member_owner\" ON \"Member\" (id, tenant_id)");
      Map<String, String> config =
          new HashMap<>(
              ConnectorConfigs.source(
                  scope,
                  db,
                  "t",
                  "public.acct,public.Member",
                  partitioned(
                      "lanes",
                      "route_to_singleton_partition",
                      "public.acct:tenant_id, public.Member:tenant_id")));
      String messages =
          String.join(
              "\n", STACK.rest().validate(ConnectorConfigs.SOURCE_CLASS, config).messages());
      assertThat(messages)
          .contains(
              "Ownership column \"tenant_id\" of public.acct is not a primary-key column",
              "replica identity (DEFAULT, the primary key [id])",
              "Run ALTER TABLE \"public\".\"acct\" REPLICA IDENTITY FULL",
              "a replica identity index cannot hold a nullable column",
              "Ownership column \"tenant_id\" of public.Member",
              "Run ALTER TABLE \"public\".\"Member\" REPLICA IDENTITY USING INDEX \"Member_owner\"");

      // the statements named make the configuration valid
      db.execute(
          "ALTER TABLE \"public\".\"acct\" REPLICA IDENTITY FULL",
          "ALTER TABLE \"public\".\"Member\" REPLICA IDENTITY USING INDEX \"Member_owner\"");
      assertThat(STACK.rest().validate(ConnectorConfigs.SOURCE_CLASS, config).errorCount())
          .isZero();

      // an identity index without the primary key cannot be used: deletes would lack it
      db.execute(
          "CREATE UNIQUE INDEX member_tenant ON \"Member\" (tenant_id)",
          "ALTER TABLE \"Member\" REPLICA IDENTITY USING INDEX member_tenant");
      assertThat(
              String.join(
                  "\n", STACK.rest().validate(ConnectorConfigs.SOURCE_CLASS, config).messages()))
          .contains(
              "public.Member has REPLICA IDENTITY USING INDEX \"member_tenant\"",
              "does not hold its primary key [id]");
    }
  }
}
