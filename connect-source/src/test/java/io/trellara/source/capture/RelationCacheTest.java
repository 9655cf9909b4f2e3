package io.trellara.source.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.SchemaFingerprint;
import io.trellara.protocol.codec.Checksums;
import io.trellara.source.capture.ddl.RelationShape;
import io.trellara.source.pgoutput.PgOutputMessage.Relation;
import io.trellara.source.pgoutput.PgOutputMessage.Type;
import io.trellara.source.pgoutput.ReplicaIdentity;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RelationCacheTest {

  private static Relation orders(String noteName, int noteTypmod) {
    return new Relation(
        0,
        16400,
        "public",
        "orders",
        ReplicaIdentity.DEFAULT,
        List.of(
            new Relation.Column(true, "id", 23, -1),
            new Relation.Column(false, noteName, 1043, noteTypmod)));
  }

  @Test
  void fingerprintIsXxh3OfTheDocumentedCanonicalDescription() {
    RelationSchema s = new RelationCache().accept(orders("note", 204));
    String canonical = "trellara.schema.v1|6:public|6:orders|2|2:id,23,-1,1|4:note,1043,204,0";
    assertThat(
            new String(
                SchemaFingerprint.canonicalDescription(s.schemaVersion()), StandardCharsets.UTF_8))
        .isEqualTo(canonical);
    assertThat(s.fingerprint())
        .isEqualTo(Checksums.hex(Checksums.xxh3(canonical.getBytes(StandardCharsets.UTF_8))))
        .matches("[0-9a-f]{16}");
    assertThat(s.schemaVersion().getColumns(1).getTypeName()).isEqualTo("character varying(200)");
  }

  @Test
  void repeatedRelationMessageKeepsTheVersionAndAChangeMakesANewOne() {
    RelationCache cache = new RelationCache();
    RelationSchema first = cache.accept(orders("note", 204));
    assertThat(cache.accept(orders("note", 204))).isSameAs(first);
    RelationSchema widened = cache.accept(orders("note", 504));
    assertThat(widened).isNotSameAs(first);
    assertThat(widened.fingerprint()).isNotEqualTo(first.fingerprint());
    assertThat(cache.get(16400, 0)).isSameAs(widened);
    assertThat(cache.version(first.version())).isSameAs(first);
    assertThat(cache.versionCount()).isEqualTo(2);
  }

  private static Relation shaped(ReplicaIdentity identity, int lastTypmod) {
    return new Relation(
        0,
        16500,
        "public",
        "bulk",
        identity,
        List.of(
            new Relation.Column(true, "id", 23, -1),
            new Relation.Column(false, "note", 25, -1),
            new Relation.Column(false, "label", 1043, 24),
            new Relation.Column(false, "amount", 1700, (12 << 16 | 2) + 4),
            new Relation.Column(false, "at", 1184, -1),
            new Relation.Column(false, "tags", 1009, -1),
            new Relation.Column(false, "mood", 70001, -1),
            new Relation.Column(false, "level", 70002, -1),
            new Relation.Column(false, "x", 1043, lastTypmod)));
  }

  private static RelationShape shape(char identity, int lastTypmod) {
    return new RelationShape(
        "public",
        "bulk",
        16500,
        identity,
        List.of(
            new RelationShape.Column("id", 23, -1, true, "pg_catalog", "int4"),
            new RelationShape.Column("note", 25, -1, false, "pg_catalog", "text"),
            new RelationShape.Column("label", 1043, 24, false, "pg_catalog", "varchar"),
            new RelationShape.Column(
                "amount", 1700, (12 << 16 | 2) + 4, false, "pg_catalog", "numeric"),
            new RelationShape.Column("at", 1184, -1, false, "pg_catalog", "timestamptz"),
            new RelationShape.Column("tags", 1009, -1, false, "pg_catalog", "_text"),
            new RelationShape.Column("mood", 70001, -1, false, "app", "mood"),
            new RelationShape.Column("level", 70002, -1, false, "pg_catalog", "int4"),
            new RelationShape.Column("x", 1043, lastTypmod, false, "pg_catalog", "varchar")));
  }

  /** The Type messages pgoutput sends before such a Relation message (a domain names its base). */
  private static void types(RelationCache cache) {
    cache.accept(new Type(0, 70001, "app", "mood"));
    cache.accept(new Type(0, 70002, "", "int4"));
  }

  @Test
  void aDdlDescriptionGivesTheVersionTheNextRelationMessageGivesAndThatMessageReusesIt() {
    for (char identity : new char[] {'d', 'f', 'i', 'n'}) {
      ReplicaIdentity pg =
          switch (identity) {
            case 'd' -> ReplicaIdentity.DEFAULT;
            case 'f' -> ReplicaIdentity.FULL;
            case 'i' -> ReplicaIdentity.INDEX;
            default -> ReplicaIdentity.NOTHING;
          };
      RelationCache fromRelation = new RelationCache();
      types(fromRelation);
      RelationSchema expected = fromRelation.accept(shaped(pg, 24));

      RelationCache cache = new RelationCache();
      RelationSchema announced = cache.accept(shape(identity, 24));
      assertThat(announced.schemaVersion()).as("" + identity).isEqualTo(expected.schemaVersion());
      assertThat(announced.replicaIdentity()).isEqualTo(expected.replicaIdentity());
      assertThat(cache.known(16500)).as("announced, not used to decode rows").isFalse();
      assertThat(cache.accept(shape(identity, 24))).isSameAs(announced);
      types(cache);
      assertThat(cache.accept(shaped(pg, 24))).isSameAs(announced);
      assertThat(cache.get(16500, 0)).isSameAs(announced);
      assertThat(cache.accept(shape(identity, 24)))
          .as("a DDL that changes no column: the current version")
          .isSameAs(announced);
      assertThat(cache.versionCount()).isEqualTo(1);
    }
    assertThat(
            new RelationCache().accept(shape('d', 24)).schemaVersion().getColumns(6).getTypeName())
        .isEqualTo("app.mood");
  }

  @Test
  void aRelationMessageThatDisagreesWithTheDdlDescriptionWins() {
    RelationCache cache = new RelationCache();
    types(cache);
    RelationSchema announced = cache.accept(shape('d', 24));
    RelationSchema relation = cache.accept(shaped(ReplicaIdentity.DEFAULT, 54));
    assertThat(relation).isNotSameAs(announced);
    assertThat(relation.fingerprint()).isNotEqualTo(announced.fingerprint());
    assertThat(cache.get(16500, 0)).isSameAs(relation);
    assertThat(relation.schemaVersion().getColumns(8).getTypeName())
        .isEqualTo("character varying(50)");
  }

  @Test
  void unknownRelationFailsClosed() {
    assertThatThrownBy(() -> new RelationCache().get(99, 0x1234))
        .isInstanceOf(CaptureException.class)
        .hasMessageContaining("99")
        .hasMessageContaining("0/1234");
  }

  @Test
  void fullReplicaIdentityHasNoKeyColumns() {
    RelationSchema s =
        new RelationCache()
            .accept(
                new Relation(
                    0,
                    1,
                    "public",
                    "ledger",
                    ReplicaIdentity.FULL,
                    List.of(
                        new Relation.Column(true, "a", 23, -1),
                        new Relation.Column(true, "b", 25, -1))));
    assertThat(s.keyColumnCount()).isZero();
  }

  @Test
  void userTypesUseTheTypeMessagesName() {
    RelationCache cache = new RelationCache();
    cache.accept(new Type(0, 70000, "shop", "mood"));
    RelationSchema s =
        cache.accept(
            new Relation(
                0,
                2,
                "public",
                "t",
                ReplicaIdentity.DEFAULT,
                List.of(
                    new Relation.Column(true, "id", 23, -1),
                    new Relation.Column(false, "m", 70000, -1),
                    new Relation.Column(false, "x", 80000, -1))));
    assertThat(s.column(1).typeName()).isEqualTo("shop.mood");
    assertThat(s.column(2).typeName()).isEqualTo("oid:80000");
  }

  @Test
  void builtInTypeNamesFollowFormatType() {
    Map<Long, String> none = Map.of();
    assertThat(PgTypeNames.name(1700, (12 << 16 | 2) + 4, none)).isEqualTo("numeric(12,2)");
    assertThat(PgTypeNames.name(1700, -1, none)).isEqualTo("numeric");
    assertThat(PgTypeNames.name(1043, 24, none)).isEqualTo("character varying(20)");
    assertThat(PgTypeNames.name(1043, -1, none)).isEqualTo("character varying");
    assertThat(PgTypeNames.name(1042, 5, none)).isEqualTo("character(1)");
    assertThat(PgTypeNames.name(1184, 3, none)).isEqualTo("timestamp(3) with time zone");
    assertThat(PgTypeNames.name(1114, -1, none)).isEqualTo("timestamp without time zone");
    assertThat(PgTypeNames.name(1083, 0, none)).isEqualTo("time(0) without time zone");
    assertThat(PgTypeNames.name(1007, -1, none)).isEqualTo("integer[]");
    assertThat(PgTypeNames.name(1231, (10 << 16 | 3) + 4, none)).isEqualTo("numeric(10,3)[]");
    assertThat(PgTypeNames.name(1186, -1, none)).isEqualTo("interval");
    assertThat(PgTypeNames.name(1186, (0x7FFF << 16) | 2, none)).isEqualTo("interval(2)");
    assertThat(PgTypeNames.name(1186, ((1 << 2 | 1 << 1) << 16) | 0xFFFF, none))
        .isEqualTo("interval year to month");
    assertThat(PgTypeNames.name(1560, 8, none)).isEqualTo("bit(8)");
    assertThat(PgTypeNames.name(701, -1, none)).isEqualTo("double precision");
    assertThat(PgTypeNames.name(3802, -1, none)).isEqualTo("jsonb");
  }
}
