package io.trellara.source.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.trellara.identity.ColumnType;
import io.trellara.identity.OwnershipRouting;
import io.trellara.identity.PgTypes;
import io.trellara.identity.RowIdentityDomain;
import io.trellara.identity.RowIdentityEncoder;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.RowImage;
import io.trellara.source.capture.CaptureException;
import io.trellara.source.capture.RelationCache;
import io.trellara.source.capture.RelationSchema;
import io.trellara.source.pgoutput.PgOutputMessage.Relation;
import io.trellara.source.pgoutput.ReplicaIdentity;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Ownership by a non-key, nullable column ({@code tenant_id}) that the replica identity carries
 * (FULL, or USING INDEX on an index holding it), and every null-key policy on real NULLs:
 * quarantine fails closed, the singleton and dead-letter policies pick lanes 0 and N-1, and
 * derive_from_primary_key hashes the primary key the catalog names (the Relation message flags no
 * column under FULL).
 */
class OwnershipByReplicaIdentityTest {
  private static final int LANES = 4;
  private static final String TABLE = "public.acct";
  private static final OwnershipKeys BY_TENANT = OwnershipKeys.parse(List.of(TABLE + ":tenant_id"));
  private static final PrimaryKeys CATALOG = r -> List.of("id");

  /**
   * id bigint PRIMARY KEY, tenant_id bigint (nullable), note text; flags as pgoutput sends them.
   */
  private static RelationSchema relation(ReplicaIdentity ri, boolean idFlag, boolean tenantFlag) {
    return new RelationCache()
        .accept(
            new Relation(
                0,
                16_500,
                "public",
                "acct",
                ri,
                List.of(
                    new Relation.Column(idFlag, "id", PgTypes.INT8, -1),
                    new Relation.Column(tenantFlag, "tenant_id", PgTypes.INT8, -1),
                    new Relation.Column(ri == ReplicaIdentity.FULL, "note", PgTypes.TEXT, -1))));
  }

  private static final RelationSchema FULL = relation(ReplicaIdentity.FULL, true, true);

  private static ColumnValue value(String text) {
    if (text == null) {
      return ColumnValue.newBuilder().setState(ColumnState.COLUMN_STATE_NULL).build();
    }
    if (text.equals("TOAST")) {
      return ColumnValue.newBuilder().setState(ColumnState.COLUMN_STATE_UNCHANGED_TOAST).build();
    }
    return ColumnValue.newBuilder()
        .setState(ColumnState.COLUMN_STATE_VALUE)
        .setTextBytes(ByteString.copyFromUtf8(text))
        .build();
  }

  private static RowImage row(String id, String tenant) {
    return RowImage.newBuilder()
        .addColumns(value(id))
        .addColumns(value(tenant))
        .addColumns(value("n"))
        .build();
  }

  private static ChangeRecord change(Operation op, RowImage before, RowImage after) {
    ChangeRecord.Builder c =
        ChangeRecord.newBuilder().setOperation(op).setIdempotencyKey("src:0/16B3748:42:1");
    if (before != null) {
      c.setBefore(before);
    }
    if (after != null) {
      c.setAfter(after);
    }
    return c.build();
  }

  private static OwnershipRouter router(NullKeyPolicy policy, PrimaryKeys pk) {
    return new OwnershipRouter(
        LANES, BY_TENANT, policy, KeyChangePolicy.EMIT_MOVE, KeyTypes.builtIn(), pk);
  }

  /** The lanes {@code c} is emitted to, in order. */
  private static List<Integer> lanes(OwnershipRouter r, RelationSchema rel, ChangeRecord c) {
    List<Integer> lanes = new ArrayList<>();
    r.route(c, rel, (p, e) -> lanes.add(p));
    return lanes;
  }

  private static int hashLane(String int8) {
    byte[] id =
        RowIdentityEncoder.forColumns(
                RowIdentityDomain.SCAN_KEY, List.of(ColumnType.of(PgTypes.INT8, -1)))
            .encode(new byte[][] {int8.getBytes(StandardCharsets.UTF_8)});
    return OwnershipRouting.partitionFor(id, LANES);
  }

  @Test
  void aNonKeyOwnershipColumnUnderFullRoutesEveryOperationByItsValue() {
    OwnershipRouter r = router(NullKeyPolicy.QUARANTINE, CATALOG);
    for (String tenant : List.of("1", "2", "3", "17", "-5")) {
      assertThat(lanes(r, FULL, change(Operation.OPERATION_INSERT, null, row("9", tenant))))
          .containsExactly(hashLane(tenant));
      assertThat(lanes(r, FULL, change(Operation.OPERATION_DELETE, row("9", tenant), null)))
          .as("a delete carries the old row under FULL")
          .containsExactly(hashLane(tenant));
    }
  }

  @Test
  void quarantineFailsClosedOnANullOwnershipValueNamingTheEvent() {
    OwnershipRouter r = router(NullKeyPolicy.QUARANTINE, CATALOG);
    assertThatThrownBy(
            () -> lanes(r, FULL, change(Operation.OPERATION_INSERT, null, row("9", null))))
        .isInstanceOfSatisfying(
            CaptureException.class,
            e -> {
              assertThat(e.rule()).isEqualTo("null_ownership_key");
              assertThat(e.getMessage())
                  .contains("src:0/16B3748:42:1", TABLE, "COLUMN_STATE_NULL", "quarantine");
            });
  }

  @Test
  void singletonAndDeadLetterPoliciesPlaceNullOwnershipRowsOnTheFirstAndLastLane() {
    for (String id : List.of("1", "2", "3", "4", "5", "6")) {
      ChangeRecord insert = change(Operation.OPERATION_INSERT, null, row(id, null));
      ChangeRecord delete = change(Operation.OPERATION_DELETE, row(id, null), null);
      OwnershipRouter singleton = router(NullKeyPolicy.ROUTE_TO_SINGLETON_PARTITION, CATALOG);
      OwnershipRouter deadLetter = router(NullKeyPolicy.ROUTE_TO_DEAD_LETTER_PARTITION, CATALOG);
      assertThat(lanes(singleton, FULL, insert)).containsExactly(0);
      assertThat(lanes(singleton, FULL, delete)).containsExactly(0);
      assertThat(lanes(deadLetter, FULL, insert)).containsExactly(LANES - 1);
      assertThat(lanes(deadLetter, FULL, delete)).containsExactly(LANES - 1);
    }
  }

  @Test
  void deriveFromPrimaryKeyHashesTheCatalogPrimaryKeyOfTheRow() {
    OwnershipRouter r = router(NullKeyPolicy.DERIVE_FROM_PRIMARY_KEY, CATALOG);
    List<Integer> seen = new ArrayList<>();
    for (int i = 1; i <= 40; i++) {
      String id = Integer.toString(i);
      List<Integer> insert =
          lanes(r, FULL, change(Operation.OPERATION_INSERT, null, row(id, null)));
      assertThat(insert).as(id).containsExactly(hashLane(id));
      assertThat(lanes(r, FULL, change(Operation.OPERATION_DELETE, row(id, null), null)))
          .containsExactly(hashLane(id));
      seen.addAll(insert);
    }
    assertThat(seen).as("not partition 0 for all").contains(0, 1, 2, 3);
  }

  @Test
  void aRowGainingAnOwnershipValueMovesFromItsDerivedLane() {
    OwnershipRouter r = router(NullKeyPolicy.DERIVE_FROM_PRIMARY_KEY, CATALOG);
    String id = "1";
    String tenant = "1";
    while (hashLane(tenant) == hashLane(id)) {
      tenant = Integer.toString(Integer.parseInt(tenant) + 1);
    }
    List<ChangeRecord> events = new ArrayList<>();
    List<Integer> lanes = new ArrayList<>();
    r.route(
        change(Operation.OPERATION_UPDATE, row(id, null), row(id, tenant)),
        FULL,
        (p, e) -> {
          lanes.add(p);
          events.add(e);
        });
    assertThat(lanes).containsExactly(hashLane(id), hashLane(tenant));
    assertThat(events)
        .extracting(ChangeRecord::getOperation)
        .containsExactly(Operation.OPERATION_DELETE, Operation.OPERATION_INSERT);
  }

  @Test
  void anOwnershipValueLeftUnsentByAnUpdateIsTakenFromTheOldRow() {
    OwnershipRouter r = router(NullKeyPolicy.QUARANTINE, CATALOG);
    assertThat(
            lanes(r, FULL, change(Operation.OPERATION_UPDATE, row("9", "12"), row("9", "TOAST"))))
        .containsExactly(hashLane("12"));
  }

  @Test
  void deriveFailsClosedWhenTheTableHasNoPrimaryKey() {
    OwnershipRouter r = router(NullKeyPolicy.DERIVE_FROM_PRIMARY_KEY, rel -> List.of());
    assertThatThrownBy(
            () -> lanes(r, FULL, change(Operation.OPERATION_INSERT, null, row("9", null))))
        .isInstanceOfSatisfying(
            CaptureException.class,
            e -> {
              assertThat(e.rule()).isEqualTo("null_ownership_key");
              assertThat(e.getMessage()).contains("no primary key");
            });
  }

  @Test
  void usingIndexOnAnIndexHoldingTheOwnershipColumnRoutesByIt() {
    RelationSchema index = relation(ReplicaIdentity.INDEX, true, true);
    OwnershipRouter r = router(NullKeyPolicy.QUARANTINE, CATALOG);
    // a delete's key image under USING INDEX: the index columns, the others null
    RowImage key =
        RowImage.newBuilder()
            .addColumns(value("9"))
            .addColumns(value("33"))
            .addColumns(value(null))
            .build();
    assertThat(lanes(r, index, change(Operation.OPERATION_DELETE, key, null)))
        .containsExactly(hashLane("33"));
  }

  @Test
  void anOwnershipColumnTheReplicaIdentityDoesNotCarryIsRefusedNamingTheAlterTable() {
    for (RelationSchema rel :
        List.of(
            relation(ReplicaIdentity.DEFAULT, true, false),
            relation(ReplicaIdentity.INDEX, true, false))) {
      OwnershipRouter r = router(NullKeyPolicy.ROUTE_TO_SINGLETON_PARTITION, CATALOG);
      assertThatThrownBy(
              () -> lanes(r, rel, change(Operation.OPERATION_INSERT, null, row("9", "1"))))
          .isInstanceOfSatisfying(
              CaptureException.class,
              e -> {
                assertThat(e.rule()).isEqualTo("ownership_key_column");
                assertThat(e.getMessage())
                    .contains(
                        "'tenant_id'",
                        TABLE,
                        "ALTER TABLE \"public\".\"acct\" REPLICA IDENTITY FULL");
              });
    }
  }

  @Test
  void aTableOwnedByItsPrimaryKeyUnderFullReadsTheKeyFromTheCatalog() {
    OwnershipRouter r =
        new OwnershipRouter(
            LANES,
            OwnershipKeys.none(),
            NullKeyPolicy.QUARANTINE,
            KeyChangePolicy.EMIT_MOVE,
            KeyTypes.builtIn(),
            CATALOG);
    for (String id : List.of("1", "2", "3", "4")) {
      assertThat(lanes(r, FULL, change(Operation.OPERATION_INSERT, null, row(id, null))))
          .containsExactly(hashLane(id));
    }
  }
}
