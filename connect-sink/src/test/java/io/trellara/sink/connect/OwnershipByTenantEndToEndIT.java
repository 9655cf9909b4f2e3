package io.trellara.sink.connect;

import static io.trellara.sink.connect.Pipelines.STACK;
import static io.trellara.sink.connect.Pipelines.awaitEqual;
import static io.trellara.sink.connect.Pipelines.deploySink;
import static io.trellara.sink.connect.Pipelines.deploySource;
import static io.trellara.sink.connect.Pipelines.schema;
import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Partitioned scale mode routed by a non-key, nullable {@code tenant_id} (4 lanes, sink with 2
 * tasks): a table under REPLICA IDENTITY FULL and one under USING INDEX on an index holding the
 * primary key and the tenant, with NULL tenants derived from the primary key, tenants changing
 * (moves between lanes), deletes and a snapshot. The sink finds each row by the target's primary
 * key, and the target ends equal to the source.
 */
@EitherPlatform
class OwnershipByTenantEndToEndIT {

  @Test
  void tablesRoutedByANonKeyTenantApplyExactlyOnTheTarget() {
    try (TestScope scope = STACK.newScope("tenantPair")) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(
          src,
          dst,
          "CREATE TABLE acct (id bigint PRIMARY KEY, tenant_id bigint, balance bigint, note text)",
          "CREATE TABLE member (id bigint PRIMARY KEY, tenant_id bigint NOT NULL, name text)",
          "CREATE UNIQUE INDEX member_owner ON member (id, tenant_id)");
      src.execute(
          "ALTER TABLE acct REPLICA IDENTITY FULL",
          "ALTER TABLE member REPLICA IDENTITY USING INDEX member_owner",
          "INSERT INTO acct SELECT g, CASE WHEN g % 3 = 0 THEN NULL ELSE g % 5 END, 100, 's'"
              + " FROM generate_series(1, 60) g",
          "INSERT INTO member SELECT g, g % 4, 'm' || g FROM generate_series(1, 20) g");
      String strict = scope.createTopic("strict", 1);
      String lanes = scope.createTopic("lanes", 4);
      deploySource(
          scope,
          src,
          strict,
          "public.acct,public.member",
          Map.of(
              "dataset.mode",
              "partitioned_scale_mode",
              "topic.partitioned",
              lanes,
              "dataset.partitioned.partition_count",
              "4",
              "dataset.partitioned.max_changes_per_chunk",
              "7",
              "dataset.partitioned.ownership_keys",
              "public.acct:tenant_id, public.member:tenant_id",
              "dataset.partitioned.null_key_policy",
              "derive_from_primary_key"));
      deploySink(scope, "sink", dst, strict + "," + lanes, Map.of("tasks.max", "2"));

      src.executeInTransaction(
          "UPDATE acct SET balance = balance - 10 WHERE id = 1",
          "UPDATE acct SET balance = balance + 10 WHERE id = 3"); // a NULL tenant's row
      src.executeInTransaction(
          "UPDATE acct SET tenant_id = NULL WHERE id % 5 = 1", // moves to the derived lane
          "UPDATE acct SET tenant_id = 9 WHERE id % 6 = 0", // NULL -> 9
          "DELETE FROM acct WHERE id IN (2, 9, 12)", // with and without a tenant
          "INSERT INTO acct SELECT g, NULL, 1, 'n' FROM generate_series(61, 80) g");
      src.executeInTransaction(
          "UPDATE member SET tenant_id = tenant_id + 1 WHERE id <= 8", // index key changes
          "UPDATE member SET name = 'renamed' WHERE id > 15", // no old key sent
          "DELETE FROM member WHERE id IN (5, 17)",
          "UPDATE acct SET note = repeat('x', 10) WHERE tenant_id IS NULL");

      awaitEqual(src, dst, "acct", "id");
      awaitEqual(src, dst, "member", "id");
      assertThat(dst.queryLong("SELECT count(*) FROM acct WHERE tenant_id IS NULL")).isPositive();
      assertThat(Pipelines.appliedTransactions(dst)).isEqualTo(4); // the snapshot and three
    }
  }
}
