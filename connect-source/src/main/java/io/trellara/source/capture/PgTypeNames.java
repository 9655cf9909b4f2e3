package io.trellara.source.capture;

import java.util.HashMap;
import java.util.Map;

/**
 * A {@code format_type(oid, typmod)}-like spelling of column types, computed once per Relation
 * message.
 *
 * <p>Built-in types come from a static table of the common types (their OIDs are stable across
 * PostgreSQL versions), with the typmod rendered as {@code format_type} does: {@code
 * numeric(12,2)}, {@code character varying(20)}, {@code timestamp(3) with time zone}, {@code
 * interval(2)}, {@code bit(8)}; arrays of them as {@code integer[]} (an array's typmod is its
 * element's). User types use the name a Type message announced ({@code namespace.name}, or just
 * {@code name} for pg_catalog or an empty namespace). Anything else is {@code oid:<n>}. Identifiers
 * are not quoted.
 */
final class PgTypeNames {

  private static final Map<Long, String> BUILT_IN = new HashMap<>();

  /** array type OID -> element type OID. */
  private static final Map<Long, Long> ARRAYS = new HashMap<>();

  static final long BPCHAR = 1042;
  static final long VARCHAR = 1043;
  static final long NUMERIC = 1700;
  static final long TIME = 1083;
  static final long TIMETZ = 1266;
  static final long TIMESTAMP = 1114;
  static final long TIMESTAMPTZ = 1184;
  static final long INTERVAL = 1186;
  static final long BIT = 1560;
  static final long VARBIT = 1562;

  static {
    builtIn(16, "boolean", 1000);
    builtIn(17, "bytea", 1001);
    builtIn(18, "\"char\"", 1002);
    builtIn(19, "name", 1003);
    builtIn(20, "bigint", 1016);
    builtIn(21, "smallint", 1005);
    builtIn(22, "int2vector", 1006);
    builtIn(23, "integer", 1007);
    builtIn(24, "regproc", 1008);
    builtIn(25, "text", 1009);
    builtIn(26, "oid", 1028);
    builtIn(27, "tid", 1010);
    builtIn(28, "xid", 1011);
    builtIn(29, "cid", 1012);
    builtIn(30, "oidvector", 1013);
    builtIn(114, "json", 199);
    builtIn(142, "xml", 143);
    builtIn(600, "point", 1017);
    builtIn(601, "lseg", 1018);
    builtIn(602, "path", 1019);
    builtIn(603, "box", 1020);
    builtIn(604, "polygon", 1027);
    builtIn(628, "line", 629);
    builtIn(650, "cidr", 651);
    builtIn(700, "real", 1021);
    builtIn(701, "double precision", 1022);
    builtIn(718, "circle", 719);
    builtIn(774, "macaddr8", 775);
    builtIn(790, "money", 791);
    builtIn(829, "macaddr", 1040);
    builtIn(869, "inet", 1041);
    builtIn(1033, "aclitem", 1034);
    builtIn(BPCHAR, "bpchar", 1014);
    builtIn(VARCHAR, "character varying", 1015);
    builtIn(1082, "date", 1182);
    builtIn(TIME, "time without time zone", 1183);
    builtIn(TIMESTAMP, "timestamp without time zone", 1115);
    builtIn(TIMESTAMPTZ, "timestamp with time zone", 1185);
    builtIn(INTERVAL, "interval", 1187);
    builtIn(TIMETZ, "time with time zone", 1270);
    builtIn(BIT, "bit", 1561);
    builtIn(VARBIT, "bit varying", 1563);
    builtIn(NUMERIC, "numeric", 1231);
    builtIn(2205, "regclass", 2210);
    builtIn(2206, "regtype", 2211);
    builtIn(2950, "uuid", 2951);
    builtIn(3220, "pg_lsn", 3221);
    builtIn(3614, "tsvector", 3643);
    builtIn(3615, "tsquery", 3645);
    builtIn(3802, "jsonb", 3807);
    builtIn(4072, "jsonpath", 4073);
    builtIn(3904, "int4range", 3905);
    builtIn(3906, "numrange", 3907);
    builtIn(3908, "tsrange", 3909);
    builtIn(3910, "tstzrange", 3911);
    builtIn(3912, "daterange", 3913);
    builtIn(3926, "int8range", 3927);
    builtIn(4451, "int4multirange", 6150);
    builtIn(4536, "nummultirange", 6151);
    builtIn(4533, "tsmultirange", 6152);
    builtIn(4534, "tstzmultirange", 6153);
    builtIn(4535, "datemultirange", 6155);
    builtIn(4532, "int8multirange", 6157);
    builtIn(5069, "xid8", 271);
    builtIn(2249, "record", 2287);
    builtIn(2278, "void", -1);
  }

  private PgTypeNames() {}

  private static void builtIn(long oid, String name, long arrayOid) {
    BUILT_IN.put(oid, name);
    if (arrayOid > 0) {
      ARRAYS.put(arrayOid, oid);
    }
  }

  /**
   * The type name of a built-in type OID with its typmod, or null when the OID is not in the table.
   */
  static String builtInName(long typeOid, int typmod) {
    Long element = ARRAYS.get(typeOid);
    if (element != null) {
      return format(element, BUILT_IN.get(element), typmod) + "[]";
    }
    String base = BUILT_IN.get(typeOid);
    return base == null ? null : format(typeOid, base, typmod);
  }

  /**
   * The type name: built-in table first, then a user type announced by a Type message ({@code
   * userTypes} maps OID to its spelling), else {@code oid:<n>}.
   */
  static String name(long typeOid, int typmod, Map<Long, String> userTypes) {
    String builtIn = builtInName(typeOid, typmod);
    if (builtIn != null) {
      return builtIn;
    }
    String user = userTypes.get(typeOid);
    return user != null ? user : "oid:" + typeOid;
  }

  /**
   * A Type message's spelling: {@code namespace.name}, or {@code name} for pg_catalog or no
   * namespace.
   */
  static String userTypeName(String namespace, String name) {
    if (namespace == null || namespace.isEmpty() || namespace.equals("pg_catalog")) {
      return name;
    }
    return namespace + '.' + name;
  }

  private static String format(long oid, String base, int typmod) {
    if (oid == BPCHAR) {
      // format_type: bpchar without typmod, character(n) with one
      return typmod >= 4 ? "character(" + (typmod - 4) + ")" : "bpchar";
    }
    if (typmod < 0) {
      return base;
    }
    if (oid == VARCHAR) {
      return typmod >= 4 ? "character varying(" + (typmod - 4) + ")" : base;
    }
    if (oid == NUMERIC) {
      if (typmod < 4) {
        return base;
      }
      int t = typmod - 4;
      int precision = (t >> 16) & 0xFFFF;
      int scale = ((t & 0x7FF) ^ 1024) - 1024; // PostgreSQL 15+: the scale may be negative
      return "numeric(" + precision + "," + scale + ")";
    }
    if (oid == TIMESTAMP) {
      return "timestamp(" + typmod + ") without time zone";
    }
    if (oid == TIMESTAMPTZ) {
      return "timestamp(" + typmod + ") with time zone";
    }
    if (oid == TIME) {
      return "time(" + typmod + ") without time zone";
    }
    if (oid == TIMETZ) {
      return "time(" + typmod + ") with time zone";
    }
    if (oid == BIT || oid == VARBIT) {
      return base + "(" + typmod + ")";
    }
    if (oid == INTERVAL) {
      return interval(typmod);
    }
    return base;
  }

  // interval typmod: fields range mask in the high 16 bits, precision (0xFFFF = none) in the low 16
  private static final int YEAR = 1 << 2;
  private static final int MONTH = 1 << 1;
  private static final int DAY = 1 << 3;
  private static final int HOUR = 1 << 10;
  private static final int MINUTE = 1 << 11;
  private static final int SECOND = 1 << 12;

  private static String interval(int typmod) {
    int range = (typmod >> 16) & 0x7FFF;
    int precision = typmod & 0xFFFF;
    String fields =
        switch (range) {
          case YEAR -> " year";
          case MONTH -> " month";
          case DAY -> " day";
          case HOUR -> " hour";
          case MINUTE -> " minute";
          case SECOND -> " second";
          case YEAR | MONTH -> " year to month";
          case DAY | HOUR -> " day to hour";
          case DAY | HOUR | MINUTE -> " day to minute";
          case DAY | HOUR | MINUTE | SECOND -> " day to second";
          case HOUR | MINUTE -> " hour to minute";
          case HOUR | MINUTE | SECOND -> " hour to second";
          case MINUTE | SECOND -> " minute to second";
          default -> "";
        };
    return precision != 0xFFFF ? "interval" + fields + "(" + precision + ")" : "interval" + fields;
  }
}
