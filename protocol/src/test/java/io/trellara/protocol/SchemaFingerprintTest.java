package io.trellara.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.codec.Checksums;
import io.trellara.protocol.v1.ColumnDefinition;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.SchemaVersion;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class SchemaFingerprintTest {

  /**
   * The worked example of docs/protocol.md: if this test changes, the document must change with it.
   */
  static final SchemaVersion ORDERS =
      SchemaVersion.newBuilder()
          .setRelation(
              RelationId.newBuilder().setSchema("public").setTable("orders").setSourceOid(16400))
          .addColumns(
              ColumnDefinition.newBuilder()
                  .setName("id")
                  .setTypeOid(23)
                  .setTypeName("integer")
                  .setTypeModifier(-1)
                  .setKey(true))
          .addColumns(
              ColumnDefinition.newBuilder()
                  .setName("note")
                  .setTypeOid(1043)
                  .setTypeName("character varying(200)")
                  .setTypeModifier(204))
          .build();

  @Test
  void workedExampleOfTheProtocolDocument() {
    byte[] canonical = SchemaFingerprint.canonicalDescription(ORDERS);
    assertThat(new String(canonical, StandardCharsets.UTF_8))
        .isEqualTo("trellara.schema.v1|6:public|6:orders|2|2:id,23,-1,1|4:note,1043,204,0");
    assertThat(canonical).hasSize(69);
    assertThat(HexFormat.of().formatHex(canonical))
        .isEqualTo(
            "7472656c6c6172612e736368656d612e76317c363a7075626c69637c363a6f72646572737c327c323a69642c32"
                + "332c2d312c317c343a6e6f74652c313034332c3230342c30");
    assertThat(SchemaFingerprint.of(ORDERS))
        .isEqualTo(Checksums.hex(Checksums.xxh3(canonical)))
        .isEqualTo("e89529b15d039492");
  }

  @Test
  void fingerprintIgnoresTypeNameOidOfRelationAndItsOwnField() {
    SchemaVersion renamedType =
        ORDERS.toBuilder()
            .setFingerprint("anything")
            .setColumns(1, ORDERS.getColumns(1).toBuilder().setTypeName("varchar(200)"))
            .setRelation(ORDERS.getRelation().toBuilder().setSourceOid(1))
            .build();
    assertThat(SchemaFingerprint.of(renamedType)).isEqualTo(SchemaFingerprint.of(ORDERS));
  }

  @Test
  void everyDescribedPropertyChangesTheFingerprint() {
    String base = SchemaFingerprint.of(ORDERS);
    assertThat(
            SchemaFingerprint.of(
                ORDERS.toBuilder()
                    .setColumns(1, ORDERS.getColumns(1).toBuilder().setTypeModifier(504))
                    .build()))
        .isNotEqualTo(base);
    assertThat(
            SchemaFingerprint.of(
                ORDERS.toBuilder()
                    .setColumns(1, ORDERS.getColumns(1).toBuilder().setKey(true))
                    .build()))
        .isNotEqualTo(base);
    assertThat(
            SchemaFingerprint.of(
                ORDERS.toBuilder()
                    .setColumns(0, ORDERS.getColumns(0).toBuilder().setTypeOid(20))
                    .build()))
        .isNotEqualTo(base);
    assertThat(
            SchemaFingerprint.of(
                ORDERS.toBuilder()
                    .setRelation(ORDERS.getRelation().toBuilder().setSchema("shop"))
                    .build()))
        .isNotEqualTo(base);
    assertThat(SchemaFingerprint.of(ORDERS.toBuilder().removeColumns(1).build()))
        .isNotEqualTo(base);
  }

  @Test
  void lengthPrefixesStopANameFromForgingASeparator() {
    SchemaVersion split =
        SchemaVersion.newBuilder()
            .setRelation(RelationId.newBuilder().setSchema("a|1:b").setTable("c"))
            .build();
    SchemaVersion joined =
        SchemaVersion.newBuilder()
            .setRelation(RelationId.newBuilder().setSchema("a").setTable("b|1:c"))
            .build();
    assertThat(SchemaFingerprint.of(split)).isNotEqualTo(SchemaFingerprint.of(joined));
  }

  @Test
  void typeOidAboveTwoToThe31IsWrittenUnsigned() {
    SchemaVersion high =
        ORDERS.toBuilder()
            .setColumns(0, ORDERS.getColumns(0).toBuilder().setTypeOid((int) 4_000_000_000L))
            .build();
    assertThat(new String(SchemaFingerprint.canonicalDescription(high), StandardCharsets.UTF_8))
        .contains("|2:id,4000000000,-1,1|");
  }

  @Test
  void matchesOnlyTheRealFingerprint() {
    SchemaVersion real = ORDERS.toBuilder().setFingerprint(SchemaFingerprint.of(ORDERS)).build();
    assertThat(SchemaFingerprint.matches(real)).isTrue();
    assertThat(
            SchemaFingerprint.matches(
                ORDERS.toBuilder().setFingerprint("0000000000000000").build()))
        .isFalse();
    assertThat(
            SchemaFingerprint.matches(
                real.toBuilder()
                    .setFingerprint(real.getFingerprint().toUpperCase(java.util.Locale.ROOT))
                    .build()))
        .isFalse();
  }
}
