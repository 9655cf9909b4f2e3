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
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Enum and domain ownership keys route: an enum by its label (row identity V2 tag 0x1A, never the
 * OID), a domain exactly as its base type. Their OIDs are user OIDs, which only the catalog
 * explains ({@link KeyTypes}); without it they are refused with the reason, never hashed some other
 * way.
 */
class OwnershipKeyTypesTest {
  private static final int LANES = 8;
  private static final long MOOD = 70_001; // an enum's OID
  private static final long TENANT = 70_002; // a domain over int8
  private static final Map<Long, ColumnType> CATALOG =
      Map.of(
          MOOD, ColumnType.enumType((int) MOOD, "mood"),
          TENANT, ColumnType.domain((int) TENANT, PgTypes.INT8, -1));
  private static final KeyTypes KEY_TYPES =
      (oid, typmod) -> CATALOG.getOrDefault(oid, KeyTypes.builtIn().resolve(oid, typmod));

  private static RelationSchema relation(long oid, long keyType) {
    return new RelationCache()
        .accept(
            new Relation(
                0,
                oid,
                "public",
                "t" + oid,
                ReplicaIdentity.DEFAULT,
                List.of(
                    new Relation.Column(true, "k", keyType, -1),
                    new Relation.Column(false, "v", PgTypes.TEXT, -1))));
  }

  private static ChangeRecord insert(String key) {
    ColumnValue k =
        ColumnValue.newBuilder()
            .setState(ColumnState.COLUMN_STATE_VALUE)
            .setTextBytes(ByteString.copyFromUtf8(key))
            .build();
    return ChangeRecord.newBuilder()
        .setOperation(Operation.OPERATION_INSERT)
        .setIdempotencyKey("src:0/16B3748:42:1")
        .setAfter(
            RowImage.newBuilder()
                .addColumns(k)
                .addColumns(ColumnValue.newBuilder().setState(ColumnState.COLUMN_STATE_NULL)))
        .build();
  }

  private static int lane(KeyTypes types, RelationSchema relation, String key) {
    int[] lane = {-1};
    new OwnershipRouter(
            LANES, OwnershipKeys.none(), NullKeyPolicy.QUARANTINE, KeyChangePolicy.EMIT_MOVE, types)
        .route(insert(key), relation, (p, c) -> lane[0] = p);
    return lane[0];
  }

  private static byte[] identity(ColumnType type, String text) {
    return RowIdentityEncoder.forColumns(RowIdentityDomain.SCAN_KEY, List.of(type))
        .encode(new byte[][] {text.getBytes(StandardCharsets.UTF_8)});
  }

  @Test
  void anEnumKeyRoutesByTheXxh3OfItsLabelIdentity() {
    RelationSchema moods = relation(16_400, MOOD);
    for (String label : List.of("sad", "ok", "happy", "so-so", "ünïcode", "a\tb")) {
      byte[] id = identity(ColumnType.enumType((int) MOOD, "mood"), label);
      assertThat(id[6]).as("enum tag").isEqualTo((byte) 0x1A);
      assertThat(lane(KEY_TYPES, moods, label))
          .as(label)
          .isEqualTo(OwnershipRouting.partitionFor(id, LANES));
    }
  }

  @Test
  void anEnumIdentityIsItsEscapedLabelNeverItsOid() {
    assertThat(identity(ColumnType.enumType((int) MOOD, "mood"), "sad"))
        .containsExactly(0x02, 0x01, 0, 0, 0, 1, 0x1A, 0x01, 's', 'a', 'd', 0, 0, 0xFF);
  }

  @Test
  void anEnumLabelRoutesLikeTheSameBytesUnderAnotherEnumOid() {
    // the label, never the OID: the same label of another enum type (after a dump and restore, say)
    // routes to the same lane
    long restored = 80_123;
    KeyTypes after =
        (oid, typmod) ->
            oid == restored
                ? ColumnType.enumType((int) restored, "mood")
                : ColumnType.of((int) oid);
    for (String label : List.of("sad", "happy", "x", "zzz", "0", "")) {
      assertThat(lane(after, relation(16_401, restored), label))
          .isEqualTo(lane(KEY_TYPES, relation(16_402, MOOD), label));
    }
  }

  @Test
  void aDomainKeyRoutesAsItsBaseType() {
    RelationSchema tenants = relation(16_410, TENANT);
    RelationSchema plain = relation(16_411, PgTypes.INT8);
    int distinct = 0;
    java.util.Set<Integer> seen = new java.util.HashSet<>();
    for (long t = -3; t < 40; t++) {
      String v = Long.toString(t);
      int lane = lane(KEY_TYPES, tenants, v);
      assertThat(lane).as("tenant %s", v).isEqualTo(lane(KEY_TYPES, plain, v));
      assertThat(lane)
          .isEqualTo(
              OwnershipRouting.partitionFor(identity(ColumnType.of(PgTypes.INT8), v), LANES));
      if (seen.add(lane)) {
        distinct++;
      }
    }
    assertThat(distinct).as("tenants spread over the lanes").isGreaterThan(1);
  }

  @Test
  void aUserTypeTheCatalogDoesNotExplainIsRefusedWithTheReason() {
    assertThatThrownBy(() -> lane(KeyTypes.builtIn(), relation(16_420, MOOD), "sad"))
        .isInstanceOf(CaptureException.class)
        .hasMessageContaining("ownership key of public.t16420 cannot be encoded as a row identity")
        .satisfies(
            e -> assertThat(((CaptureException) e).rule()).isEqualTo("ownership_key_column"));
  }

  @Test
  void aDomainOverAnUnencodableTypeIsRefusedNotHashed() {
    long overJson = 70_003;
    KeyTypes types =
        (oid, typmod) ->
            oid == overJson ? ColumnType.domain((int) overJson, 114, -1) : ColumnType.of((int) oid);
    assertThatThrownBy(() -> lane(types, relation(16_430, overJson), "{}"))
        .isInstanceOf(CaptureException.class)
        .hasMessageContaining("cannot be encoded as a row identity");
  }
}
