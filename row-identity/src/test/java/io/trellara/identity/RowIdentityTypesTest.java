package io.trellara.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class RowIdentityTypesTest {

  @Test
  void supportsEveryShippedBuiltinOid() {
    int[] supported = {
      16, 21, 23, 20, 26, 700, 701, 1700, 25, 1043, 1042, 17, 2950, 1082, 1083, 1114, 1184, 1266,
      1186, 869, 650, 829, 774, 1560, 1562, 3802, 1007, 1009, 3904, 3926, 3906, 3908, 3910, 3912,
      4451, 4536
    };
    for (int oid : supported) {
      assertThat(RowIdentityTypes.supports(oid)).as("OID %d", oid).isTrue();
    }
  }

  @Test
  void rejectsJsonNamingColumnTypeAndHint() {
    assertThat(RowIdentityTypes.supports(114)).isFalse();
    assertThat(RowIdentityTypes.rejectionReason("payload", ColumnType.of(114)))
        .contains(
            "column \"payload\" has type json (OID 114), which has no row identity V2 encoder; json has no equality"
                + " operator; use jsonb");
  }

  @Test
  void rejectsUnknownOidsAndUnassignedTags() {
    assertThat(RowIdentityTypes.rejectionReason("geom", ColumnType.of(99_999)))
        .hasValueSatisfying(r -> assertThat(r).contains("column \"geom\"").contains("OID 99999"));
    assertThatThrownBy(() -> TypeTag.fromCode(0x1B)).isInstanceOf(RowIdentityException.class);
    assertThatThrownBy(() -> RowIdentityDomain.fromCode(0x08))
        .isInstanceOf(RowIdentityException.class);
  }

  @Test
  void rejectsNonDeterministicCollations() {
    ColumnType ci = ColumnType.of(25).withNondeterministicCollation();
    assertThat(RowIdentityTypes.rejectionReason("email", ci))
        .hasValueSatisfying(
            r ->
                assertThat(r)
                    .startsWith(
                        "column \"email\" has type text (OID 25), which cannot be a row"
                            + " identity V2 field")
                    .contains("non-deterministic collation"));
    assertThatThrownBy(
            () ->
                RowIdentityEncoder.forColumns(
                    RowIdentityDomain.SCAN_KEY, List.of(ColumnType.of(23), ci)))
        .isInstanceOf(RowIdentityException.class)
        .hasMessageStartingWith("field 1 (text (OID 25))");
  }

  @Test
  void domainsEncodeAsTheirBaseTypeAndEnumsByLabel() {
    KeyEncoder domain =
        RowIdentityEncoder.forColumns(
            RowIdentityDomain.SCAN_KEY, List.of(ColumnType.domain(50_000, 20, -1)));
    KeyEncoder base =
        RowIdentityEncoder.forColumns(RowIdentityDomain.SCAN_KEY, List.of(ColumnType.of(20)));
    assertThat(domain.encodeStrings("12")).isEqualTo(base.encodeStrings("12"));
    KeyEncoder mood =
        RowIdentityEncoder.forColumns(
            RowIdentityDomain.SCAN_KEY, List.of(ColumnType.enumType(60_000, "mood")));
    assertThat(mood.tag(0)).isEqualTo(TypeTag.ENUM);
    assertThat(RowIdentityDecoder.decode(mood.encodeStrings("ok")).fields().get(0).value())
        .isEqualTo("ok");
    ColumnType domainOverJson = ColumnType.domain(50_001, 114, -1);
    assertThat(RowIdentityTypes.supports(domainOverJson)).isFalse();
  }

  @Test
  void compositesOfSupportedFieldsAreSupportedAndOthersNot() {
    ColumnType ok =
        ColumnType.composite(70_000, "pair", List.of(ColumnType.of(23), ColumnType.of(25)));
    ColumnType bad =
        ColumnType.composite(70_001, "blob", List.of(ColumnType.of(23), ColumnType.of(114)));
    assertThat(RowIdentityTypes.supports(ok)).isTrue();
    assertThat(RowIdentityTypes.rejectionReason("b", bad))
        .hasValueSatisfying(r -> assertThat(r).contains("json (OID 114)"));
    ColumnType enumArray = ColumnType.arrayOf(60_001, ColumnType.enumType(60_000, "mood"));
    assertThat(RowIdentityTypes.supports(enumArray)).isTrue();
  }

  @Test
  void resolvesTypeNamesForTheCli() {
    assertThat(RowIdentityText.columnType("bigint").typeOid()).isEqualTo(20);
    assertThat(RowIdentityText.columnType("numeric(10,2)").typeOid()).isEqualTo(1700);
    assertThat(RowIdentityText.columnType("timestamp with time zone").typeOid()).isEqualTo(1184);
    assertThat(RowIdentityText.columnType("INT4[]").typeOid()).isEqualTo(1007);
    assertThat(RowIdentityText.columnType("int8multirange").typeOid()).isEqualTo(4536);
    assertThat(RowIdentityText.domain("scan-key")).isEqualTo(RowIdentityDomain.SCAN_KEY);
    assertThatThrownBy(() -> RowIdentityText.columnType("no_such_type"))
        .isInstanceOf(RowIdentityException.class);
    assertThatThrownBy(
            () ->
                RowIdentityText.encode(RowIdentityDomain.SCAN_KEY, List.of("json"), List.of("{}")))
        .isInstanceOf(RowIdentityException.class)
        .hasMessageContaining("json");
  }
}
