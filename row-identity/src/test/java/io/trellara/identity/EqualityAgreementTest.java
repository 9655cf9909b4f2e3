package io.trellara.identity;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Pairs PostgreSQL considers equal encode identically; near misses do not. */
class EqualityAgreementTest {

  private static byte[] enc(String type, String value) {
    return RowIdentityText.encode(RowIdentityDomain.SCAN_KEY, List.of(type), Arrays.asList(value));
  }

  @ParameterizedTest(name = "{0}: {1} = {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "numeric     | 1.0                                | 1.00",
        "numeric     | 0.000                              | -0",
        "numeric     | 1e3                                | 1000.000",
        "float8      | -0                                 | 0",
        "float8      | NaN                                | nan",
        "float4      | -0                                 | 0",
        "bpchar      | 'ab   '                            | ab",
        "timestamptz | 2024-01-02 03:04:05+05:45          | 2024-01-01 21:19:05+00",
        "timestamptz | 2024-01-02 03:04:05+13:45          | 2024-01-01 09:49:05-03:30",
        "interval    | 1 mon                              | 30 days",
        "interval    | 1 day                              | 24:00:00",
        "interval    | 1 year                             | 360 days",
        "jsonb       | '{\"a\":1,\"b\":2}'                | '{\"b\":2,\"a\":1}'",
        "jsonb       | '{\"a\":1,\"a\":2}'                | '{\"a\":2}'",
        "jsonb       | '{\"n\":1.0}'                      | '{\"n\":1.00}'",
        "jsonb       | '[1, \"\\u0041\"]'                 | '[1,\"A\"]'",
        "int4range   | [1,10]                             | [1,11)",
        "int4range   | (0,10)                             | [1,10)",
        "int4range   | [5,5)                              | empty",
        "numrange    | (1,1)                              | empty",
        "daterange   | (2024-01-01,2024-01-03]            | [2024-01-02,2024-01-04)",
        "int4[]      | '{1, 2}'                           | {1,2}",
        "text[]      | '{\"a\",b}'                        | '{a,\"b\"}'",
        "cidr        | 10.0.0.0/8                         | 10.0.0.0/8",
        "inet        | 10.1.2.3                           | 10.1.2.3/32",
        "inet        | 2001:DB8::1                        | 2001:db8:0:0:0:0:0:1",
        "macaddr     | 08-00-2B-01-02-03                  | 08:00:2b:01:02:03",
        "uuid        | A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11 | a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
      })
  void equalValuesEncodeIdentically(String type, String a, String b) {
    assertThat(enc(type, unquote(a))).isEqualTo(enc(type, unquote(b)));
  }

  @ParameterizedTest(name = "{0}: {1} <> {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "numeric     | 1.01                      | 1.1",
        "text        | 'ab '                     | ab",
        "timetz      | 12:00:00+01               | 11:00:00+00",
        "interval    | 1 mon                     | 31 days",
        "jsonb       | '[1,2]'                   | '[2,1]'",
        "jsonb       | '{\"a\":\"1\"}'           | '{\"a\":1}'",
        "int4[]      | '{1,2}'                   | '[0:1]={1,2}'",
        "int4[]      | '{{1,2}}'                 | '{1,2}'",
        "inet        | 10.1.2.3/8                | 10.1.2.3/32",
        "int4range   | [1,10]                    | [1,10)",
        "numrange    | [1,2]                     | [1,2)",
        "numrange    | (1,2)                     | [1,2)",
        "int4range   | (1,2]                     | [1,2]",
        "varbit      | 1                         | 10",
      })
  void unequalValuesEncodeDifferently(String type, String a, String b) {
    assertThat(enc(type, unquote(a))).isNotEqualTo(enc(type, unquote(b)));
  }

  private static String unquote(String s) {
    return s.length() >= 2 && s.startsWith("'") && s.endsWith("'")
        ? s.substring(1, s.length() - 1)
        : s;
  }
}
