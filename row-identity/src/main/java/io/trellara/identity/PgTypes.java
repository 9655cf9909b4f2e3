package io.trellara.identity;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one table of PostgreSQL's built-in types, shared by the row identity codecs and the source's
 * type names: each type's OID, its {@code pg_type.typname}, its SQL spelling as {@code format_type}
 * prints it without a typmod, its array type's OID, and for a range its subtype and its multirange.
 * Built-in OIDs are fixed by PostgreSQL ({@code pg_type.dat}) and the same in every version that
 * has the type; RowIdentityOrderingIT checks them against a server's {@code pg_type}.
 */
public final class PgTypes {

  /**
   * One built-in type.
   *
   * @param typname its {@code pg_type.typname}, e.g. {@code int4}
   * @param sqlName its spelling as {@code format_type(oid, -1)} prints it (a column without a
   *     typmod), e.g. {@code integer}, {@code bpchar}
   * @param arrayOid its array type's OID; 0 when it has none
   */
  public record PgType(int oid, String typname, String sqlName, int arrayOid) {}

  /**
   * A built-in range type: its subtype and its multirange (PostgreSQL 14+).
   *
   * @param oid the range type's OID
   */
  public record PgRange(int oid, int subtypeOid, int multirangeOid) {}

  public static final int BOOL = 16;
  public static final int BYTEA = 17;
  public static final int INT8 = 20;
  public static final int INT2 = 21;
  public static final int INT4 = 23;
  public static final int TEXT = 25;
  public static final int BPCHAR = 1042;
  public static final int VARCHAR = 1043;
  public static final int DATE = 1082;
  public static final int TIME = 1083;
  public static final int TIMESTAMP = 1114;
  public static final int TIMESTAMPTZ = 1184;
  public static final int INTERVAL = 1186;
  public static final int TIMETZ = 1266;
  public static final int BIT = 1560;
  public static final int VARBIT = 1562;
  public static final int NUMERIC = 1700;
  public static final int JSONB = 3802;

  private static final Map<Integer, PgType> BY_OID = new LinkedHashMap<>();
  private static final Map<Integer, PgType> BY_ARRAY_OID = new HashMap<>();
  private static final Map<String, PgType> BY_TYPNAME = new HashMap<>();
  private static final Map<Integer, PgRange> RANGES = new LinkedHashMap<>();

  static {
    type(BOOL, "bool", "boolean", 1000);
    type(BYTEA, "bytea", "bytea", 1001);
    type(18, "char", "\"char\"", 1002);
    type(19, "name", "name", 1003);
    type(INT8, "int8", "bigint", 1016);
    type(INT2, "int2", "smallint", 1005);
    type(22, "int2vector", "int2vector", 1006);
    type(INT4, "int4", "integer", 1007);
    type(24, "regproc", "regproc", 1008);
    type(TEXT, "text", "text", 1009);
    type(26, "oid", "oid", 1028);
    type(27, "tid", "tid", 1010);
    type(28, "xid", "xid", 1011);
    type(29, "cid", "cid", 1012);
    type(30, "oidvector", "oidvector", 1013);
    type(114, "json", "json", 199);
    type(142, "xml", "xml", 143);
    type(600, "point", "point", 1017);
    type(601, "lseg", "lseg", 1018);
    type(602, "path", "path", 1019);
    type(603, "box", "box", 1020);
    type(604, "polygon", "polygon", 1027);
    type(628, "line", "line", 629);
    type(650, "cidr", "cidr", 651);
    type(700, "float4", "real", 1021);
    type(701, "float8", "double precision", 1022);
    type(705, "unknown", "unknown", 0);
    type(718, "circle", "circle", 719);
    type(774, "macaddr8", "macaddr8", 775);
    type(790, "money", "money", 791);
    type(829, "macaddr", "macaddr", 1040);
    type(869, "inet", "inet", 1041);
    type(1033, "aclitem", "aclitem", 1034);
    type(BPCHAR, "bpchar", "bpchar", 1014);
    type(VARCHAR, "varchar", "character varying", 1015);
    type(DATE, "date", "date", 1182);
    type(TIME, "time", "time without time zone", 1183);
    type(TIMESTAMP, "timestamp", "timestamp without time zone", 1115);
    type(TIMESTAMPTZ, "timestamptz", "timestamp with time zone", 1185);
    type(INTERVAL, "interval", "interval", 1187);
    type(TIMETZ, "timetz", "time with time zone", 1270);
    type(BIT, "bit", "bit", 1561);
    type(VARBIT, "varbit", "bit varying", 1563);
    type(NUMERIC, "numeric", "numeric", 1231);
    type(2205, "regclass", "regclass", 2210);
    type(2206, "regtype", "regtype", 2211);
    type(2249, "record", "record", 2287);
    type(2278, "void", "void", 0);
    type(2950, "uuid", "uuid", 2951);
    type(3220, "pg_lsn", "pg_lsn", 3221);
    type(3614, "tsvector", "tsvector", 3643);
    type(3615, "tsquery", "tsquery", 3645);
    type(JSONB, "jsonb", "jsonb", 3807);
    type(4072, "jsonpath", "jsonpath", 4073);
    type(5069, "xid8", "xid8", 271);
    range(3904, "int4range", 3905, INT4, 4451, "int4multirange", 6150);
    range(3906, "numrange", 3907, NUMERIC, 4532, "nummultirange", 6151);
    range(3908, "tsrange", 3909, TIMESTAMP, 4533, "tsmultirange", 6152);
    range(3910, "tstzrange", 3911, TIMESTAMPTZ, 4534, "tstzmultirange", 6153);
    range(3912, "daterange", 3913, DATE, 4535, "datemultirange", 6155);
    range(3926, "int8range", 3927, INT8, 4536, "int8multirange", 6157);
  }

  private PgTypes() {}

  private static void type(int oid, String typname, String sqlName, int arrayOid) {
    PgType t = new PgType(oid, typname, sqlName, arrayOid);
    BY_OID.put(oid, t);
    BY_TYPNAME.put(typname, t);
    if (arrayOid != 0) {
      BY_ARRAY_OID.put(arrayOid, t);
    }
  }

  private static void range(
      int oid,
      String typname,
      int arrayOid,
      int subtypeOid,
      int multirangeOid,
      String multirangeTypname,
      int multirangeArrayOid) {
    type(oid, typname, typname, arrayOid);
    type(multirangeOid, multirangeTypname, multirangeTypname, multirangeArrayOid);
    RANGES.put(oid, new PgRange(oid, subtypeOid, multirangeOid));
  }

  /** The built-in type of {@code oid}, or null. */
  public static PgType byOid(int oid) {
    return BY_OID.get(oid);
  }

  /** The built-in type whose array type is {@code arrayOid}, or null. */
  public static PgType elementOf(int arrayOid) {
    return BY_ARRAY_OID.get(arrayOid);
  }

  /** The built-in type of that {@code typname}; throws when there is none (a typo in a table). */
  public static PgType named(String typname) {
    PgType t = BY_TYPNAME.get(typname);
    if (t == null) {
      throw new IllegalArgumentException("no built-in type named " + typname);
    }
    return t;
  }

  /** The built-in range of {@code oid}, or null. */
  public static PgRange range(int oid) {
    return RANGES.get(oid);
  }

  /** Every built-in type, in the table's order. */
  public static Collection<PgType> all() {
    return Collections.unmodifiableCollection(BY_OID.values());
  }
}
