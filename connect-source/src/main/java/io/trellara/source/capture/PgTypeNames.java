package io.trellara.source.capture;

import io.trellara.identity.PgTypes;
import java.util.Map;

/**
 * A {@code format_type(oid, typmod)}-like spelling of column types, computed once per Relation
 * message.
 *
 * <p>Built-in types come from the one table of built-in types shared with row identity ({@link
 * PgTypes}: their OIDs are stable across PostgreSQL versions), with the typmod rendered as {@code
 * format_type} does: {@code numeric(12,2)}, {@code character varying(20)}, {@code timestamp(3) with
 * time zone}, {@code interval(2)}, {@code bit(8)}; arrays of them as {@code integer[]} (an array's
 * typmod is its element's). User types use the name a Type message announced ({@code
 * namespace.name}, or just {@code name} for pg_catalog or an empty namespace). Anything else is
 * {@code oid:<n>}. Identifiers are not quoted.
 */
final class PgTypeNames {

  static final long BPCHAR = PgTypes.BPCHAR;
  static final long VARCHAR = PgTypes.VARCHAR;
  static final long NUMERIC = PgTypes.NUMERIC;
  static final long TIME = PgTypes.TIME;
  static final long TIMETZ = PgTypes.TIMETZ;
  static final long TIMESTAMP = PgTypes.TIMESTAMP;
  static final long TIMESTAMPTZ = PgTypes.TIMESTAMPTZ;
  static final long INTERVAL = PgTypes.INTERVAL;
  static final long BIT = PgTypes.BIT;
  static final long VARBIT = PgTypes.VARBIT;

  private PgTypeNames() {}

  /**
   * The type name of a built-in type OID with its typmod, or null when the OID is not in the table.
   */
  static String builtInName(long typeOid, int typmod) {
    if (typeOid < 0 || typeOid > Integer.MAX_VALUE) {
      return null;
    }
    PgTypes.PgType element = PgTypes.elementOf((int) typeOid);
    if (element != null) {
      return format(element.oid(), element.sqlName(), typmod) + "[]";
    }
    PgTypes.PgType type = PgTypes.byOid((int) typeOid);
    return type == null ? null : format(typeOid, type.sqlName(), typmod);
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
