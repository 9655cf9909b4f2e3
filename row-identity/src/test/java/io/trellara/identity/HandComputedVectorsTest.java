package io.trellara.identity;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Vectors worked out by hand from the byte rules of issue 3, independent of the golden file. */
class HandComputedVectorsTest {

  private static String one(String type, String value) {
    return Hex.of(
        RowIdentityText.encode(
            RowIdentityDomain.SCAN_KEY, List.of(type), java.util.Arrays.asList(value)));
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(
      delimiter = '|',
      nullValues = "NULL",
      value = {
        // header 02 01 00000001, field = tag state payload, tuple end ff
        "int4      | 42                        | 02 01 00000001 03 01 8000002a ff",
        "int4      | NULL                      | 02 01 00000001 03 00 ff",
        "int2      | -1                        | 02 01 00000001 02 01 7fff ff",
        "int8      | -1                        | 02 01 00000001 04 01 7fffffffffffffff ff",
        "oid       | 4294967295                | 02 01 00000001 05 01 ffffffff ff",
        "bool      | t                         | 02 01 00000001 01 01 01 ff",
        "text      | ab                        | 02 01 00000001 09 01 6162 0000 ff",
        "bytea     | \\x00ff                   | 02 01 00000001 0c 01 00ff ff 0000 ff",
        "bpchar    | 'a  '                     | 02 01 00000001 0b 01 61 0000 ff",
        // numeric: class, E sign-flipped i32, digits, 00 00; negatives complemented after the class
        // byte
        "numeric   | 1.00                      | 02 01 00000001 08 01 03 80000000 31 0000 ff",
        "numeric   | 0.035                     | 02 01 00000001 08 01 03 7ffffffe 3335 0000 ff",
        "numeric   | 1200                      | 02 01 00000001 08 01 03 80000003 3132 0000 ff",
        "numeric   | -1.5                      | 02 01 00000001 08 01 01 7fffffff ceca ffff ff",
        "numeric   | -0.000                    | 02 01 00000001 08 01 02 ff",
        "numeric   | NaN                       | 02 01 00000001 08 01 05 ff",
        "numeric   | -Infinity                 | 02 01 00000001 08 01 00 ff",
        // floats: +1.0 flips the sign bit; -1.0 inverts all bits; NaN is the quiet NaN, sign
        // flipped
        "float8    | 1                         | 02 01 00000001 07 01 bff0000000000000 ff",
        "float8    | -1                        | 02 01 00000001 07 01 400fffffffffffff ff",
        "float8    | -0                        | 02 01 00000001 07 01 8000000000000000 ff",
        "float4    | NaN                       | 02 01 00000001 06 01 ffc00000 ff",
        "date      | 2000-01-02                | 02 01 00000001 0e 01 80000001 ff",
        "date      | 1999-12-31                | 02 01 00000001 0e 01 7fffffff ff",
        "date      | infinity                  | 02 01 00000001 0e 01 ffffffff ff",
        "timestamptz | 2000-01-01 05:45:00+05:45 | 02 01 00000001 11 01 8000000000000000 ff",
        "timestamp | 2000-01-01 00:00:00.000001 | 02 01 00000001 10 01 8000000000000001 ff",
        "time      | 00:00:01                  | 02 01 00000001 0f 01 00000000000f4240 ff",
        // timetz 00:00:00+01: zone = -3600 s west; GMT-equivalent -3.6e9 us
        "timetz    | 00:00:00+01               | 02 01 00000001 12 01 7fffffff296c5c00 7ffff1f0 ff",
        // interval: 1 mon = 30 days = 2592000000000 us as a 128-bit value
        "interval  | 1 mon                     | 02 01 00000001 13 01 8000000000000000 0000025b7f3d4000 ff",
        "interval  | 30 days                   | 02 01 00000001 13 01 8000000000000000 0000025b7f3d4000 ff",
        "uuid      | 00112233-4455-6677-8899-aabbccddeeff | 02 01 00000001 0d 01 00112233445566778899aabbccddeeff ff",
        "inet      | 10.1.2.3/8                | 02 01 00000001 14 01 02 08 0a010203 ff",
        "cidr      | 10.0.0.0/8                | 02 01 00000001 15 01 02 08 0a000000 ff",
        "inet      | ::1                       | 02 01 00000001 14 01 03 80 00000000000000000000000000000001 ff",
        "macaddr   | 08:00:2b:01:02:03         | 02 01 00000001 16 01 08002b010203 ff",
        "varbit    | 101                       | 02 01 00000001 19 01 00000003 a0 0000 ff",
        "bit       | 00000000                  | 02 01 00000001 18 01 00000008 00ff 0000 ff",
        "enum      | happy                     | 02 01 00000001 1a 01 6861707079 0000 ff",
      })
  void encodesByTheByteRules(String type, String value, String expected) {
    String v =
        value != null && value.startsWith("'") ? value.substring(1, value.length() - 1) : value;
    assertThat(one(type, v)).isEqualTo(expected.replace(" ", ""));
  }

  @Test
  void encodesEveryDomainInTheSecondByte() {
    for (RowIdentityDomain d : RowIdentityDomain.values()) {
      byte[] id = RowIdentityText.encode(d, List.of("int4"), List.of("1"));
      assertThat(id[1] & 0xFF).isEqualTo(d.code());
      assertThat(RowIdentityDecoder.decode(id).domain()).isEqualTo(d);
    }
  }

  @Test
  void framesTwoFieldsWithTheirOwnTags() {
    byte[] id =
        RowIdentityText.encode(
            RowIdentityDomain.GROUP_KEY,
            List.of("int4", "text"),
            java.util.Arrays.asList("1", null));
    assertThat(Hex.of(id)).isEqualTo("0203" + "00000002" + "0301" + "80000001" + "0900" + "ff");
  }

  @Test
  void framesArraysWithLengthDimensionsAndElements() {
    // {1,NULL}: length 0x16 (1 + 8 + 4 + 6 + 2 + 1), ndim 1, lower bound 1, length 2, count 2, int4
    // 1, int4 NULL, tuple end
    assertThat(one("int4[]", "{1,NULL}"))
        .isEqualTo(
            "02010000000140 01".replace(" ", "")
                + "00000016"
                + "01"
                + "80000001"
                + "00000002"
                + "00000002"
                + "030180000001"
                + "0300"
                + "ff"
                + "ff");
  }

  @Test
  void framesRangesWithPostgresFlags() {
    // [1,10] on int4 is canonical [1,11): flags LB_INC (02), two bound fields, tuple end
    assertThat(one("int4range", "[1,10]"))
        .isEqualTo(
            "0201000000014101" + "0000000e" + "02" + "030180000001" + "03018000000b" + "ff" + "ff");
    assertThat(one("int4range", "empty"))
        .isEqualTo("0201000000014101" + "00000002" + "01ff" + "ff");
  }

  @Test
  void framesJsonbAsSortedNodes() {
    // {"b":true,"a":null}: 12 bytes: object 07, member 01 "a" 0000 null 01, member 01 "b" 0000 true
    // 05, end 00
    assertThat(one("jsonb", "{\"b\":true,\"a\":null}"))
        .isEqualTo(
            "0201000000014301"
                + "0000000c"
                + "07"
                + "01"
                + "61"
                + "0000"
                + "01"
                + "01"
                + "62"
                + "0000"
                + "05"
                + "00"
                + "ff");
  }
}
