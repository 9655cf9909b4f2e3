package io.trellara.sink.postgres.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.sink.postgres.names.QualifiedName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The table of lossless retypes (docs/security.md), row by row, with modifiers as the server has
 * them.
 */
class RetypesTest {
  private static final int VARHDRSZ = 4;

  private static int varchar(int n) {
    return n + VARHDRSZ;
  }

  private static int numeric(int p, int s) {
    return ((p << 16) | (s & 0x7ff)) + VARHDRSZ;
  }

  /** {@code name} or {@code name(a)} or {@code name(a,b)}: a pg_catalog type and its modifier. */
  private static int mod(String name, String args) {
    if (args.isEmpty()) {
      return -1;
    }
    String[] a = args.split(";");
    return switch (name) {
      case "numeric" -> numeric(Integer.parseInt(a[0]), a.length > 1 ? Integer.parseInt(a[1]) : 0);
      case "varchar", "bpchar" -> varchar(Integer.parseInt(a[0]));
      default -> Integer.parseInt(a[0]);
    };
  }

  @ParameterizedTest(name = "{0}({1}) -> {2}({3}): {4}")
  @CsvSource({
    "int2,,int4,,true",
    "int2,,float4,,true",
    "int4,,int8,,true",
    "int4,,float8,,true",
    "int4,,float4,,false",
    "int8,,float8,,false",
    "int8,,int4,,false",
    "int8,,numeric,,true",
    "int8,,numeric,19,true",
    "int8,,numeric,18,false",
    "int4,,numeric,12;2,true",
    "int4,,numeric,12;3,false",
    "float4,,float8,,true",
    "float8,,float4,,false",
    "numeric,10;2,numeric,12;3,true",
    "numeric,10;2,numeric,12;1,false",
    "numeric,10;2,numeric,10;3,false",
    "numeric,10;2,numeric,,true",
    "numeric,,numeric,10;2,false",
    "varchar,10,varchar,20,true",
    "varchar,10,varchar,5,false",
    "varchar,10,text,,true",
    "varchar,10,varchar,,true",
    "varchar,,varchar,10,false",
    "text,,varchar,,true",
    "text,,varchar,1,false",
    "bpchar,5,bpchar,10,false",
    "bpchar,5,text,,false",
    "bit,4,varbit,8,true",
    "varbit,8,varbit,4,false",
    "timestamp,3,timestamp,6,true",
    "timestamp,,timestamp,3,false",
    "timestamp,,timestamptz,,false",
    "timestamptz,,timestamp,,false",
    "timestamptz,,date,,false",
    "int4,,int4,,true",
    "jsonb,,json,,false",
  })
  void lossless(String from, String fromArgs, String to, String toArgs, boolean expected) {
    String fa = fromArgs == null ? "" : fromArgs;
    String ta = toArgs == null ? "" : toArgs;
    assertThat(
            Retypes.lossless(
                new QualifiedName("pg_catalog", from),
                mod(from, fa),
                new QualifiedName("pg_catalog", to),
                mod(to, ta)))
        .isEqualTo(expected);
  }

  @ParameterizedTest
  @CsvSource({"public,mood,public,mood,true", "public,mood,public,mood2,false"})
  void aUserTypeOnlyToItself(String fs, String ft, String ts, String tt, boolean expected) {
    assertThat(Retypes.lossless(new QualifiedName(fs, ft), -1, new QualifiedName(ts, tt), -1))
        .isEqualTo(expected);
  }
}
