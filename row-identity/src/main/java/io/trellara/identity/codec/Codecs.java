package io.trellara.identity.codec;

import io.trellara.identity.ColumnType;
import io.trellara.identity.RowIdentityException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The explicit type registry: PostgreSQL built-in type OID to encoder. Anything not listed is
 * rejected; there is no text or hash fallback. OIDs are PostgreSQL's fixed built-in ones (checked
 * against pg_type by RowIdentityOrderingIT).
 */
public final class Codecs {
  private static final Map<Integer, FieldCodec> SCALARS = new HashMap<>();

  /** Built-in array type OID to element type OID. */
  private static final Map<Integer, Integer> ARRAYS = new HashMap<>();

  /** Built-in range type OID to subtype OID. */
  private static final Map<Integer, Integer> RANGES = new HashMap<>();

  /** Built-in multirange type OID to range type OID. */
  private static final Map<Integer, Integer> MULTIRANGES = new HashMap<>();

  /** Every type name the registry knows, supported or not, for messages. */
  private static final Map<Integer, String> NAMES = new HashMap<>();

  public static final int JSONB_OID = 3802;
  public static final int JSONB_ARRAY_OID = 3807;

  static {
    scalar(16, 1000, "bool", BoolCodec.INSTANCE);
    scalar(21, 1005, "int2", IntegerCodec.INT2);
    scalar(23, 1007, "int4", IntegerCodec.INT4);
    scalar(20, 1016, "int8", IntegerCodec.INT8);
    scalar(26, 1028, "oid", IntegerCodec.OID);
    scalar(700, 1021, "float4", FloatCodec.FLOAT4);
    scalar(701, 1022, "float8", FloatCodec.FLOAT8);
    scalar(1700, 1231, "numeric", NumericCodec.INSTANCE);
    scalar(25, 1009, "text", StringCodec.TEXT);
    scalar(1043, 1015, "varchar", StringCodec.VARCHAR);
    scalar(1042, 1014, "bpchar", StringCodec.BPCHAR);
    scalar(17, 1001, "bytea", ByteaCodec.INSTANCE);
    scalar(2950, 2951, "uuid", UuidCodec.INSTANCE);
    scalar(1082, 1182, "date", DateTimeCodec.DATE);
    scalar(1083, 1183, "time", DateTimeCodec.TIME);
    scalar(1114, 1115, "timestamp", DateTimeCodec.TIMESTAMP);
    scalar(1184, 1185, "timestamptz", DateTimeCodec.TIMESTAMPTZ);
    scalar(1266, 1270, "timetz", DateTimeCodec.TIMETZ);
    scalar(1186, 1187, "interval", IntervalCodec.INSTANCE);
    scalar(869, 1041, "inet", NetworkCodec.INET);
    scalar(650, 651, "cidr", NetworkCodec.CIDR);
    scalar(829, 1040, "macaddr", NetworkCodec.MACADDR);
    scalar(774, 775, "macaddr8", NetworkCodec.MACADDR8);
    scalar(1560, 1561, "bit", BitCodec.BIT);
    scalar(1562, 1563, "varbit", BitCodec.VARBIT);
    scalar(JSONB_OID, JSONB_ARRAY_OID, "jsonb", JsonbCodec.INSTANCE);
    range(3904, 4451, "int4range", 23);
    range(3926, 4536, "int8range", 20);
    range(3906, 4532, "numrange", 1700);
    range(3908, 4533, "tsrange", 1114);
    range(3910, 4534, "tstzrange", 1184);
    range(3912, 4535, "daterange", 1082);
    // Known but unsupported, so rejections can name them.
    unsupported(114, "json");
    unsupported(142, "xml");
    unsupported(18, "char");
    unsupported(19, "name");
    unsupported(790, "money");
    unsupported(600, "point");
    unsupported(601, "lseg");
    unsupported(602, "path");
    unsupported(603, "box");
    unsupported(604, "polygon");
    unsupported(628, "line");
    unsupported(718, "circle");
    unsupported(3614, "tsvector");
    unsupported(3615, "tsquery");
    unsupported(2249, "record");
    unsupported(705, "unknown");
    unsupported(3220, "pg_lsn");
    unsupported(24, "regproc");
    unsupported(2205, "regclass");
    unsupported(2206, "regtype");
    unsupported(28, "xid");
    unsupported(5069, "xid8");
    unsupported(27, "tid");
    unsupported(29, "cid");
  }

  private Codecs() {}

  private static void scalar(int oid, int arrayOid, String name, FieldCodec codec) {
    SCALARS.put(oid, codec);
    ARRAYS.put(arrayOid, oid);
    NAMES.put(oid, name);
    NAMES.put(arrayOid, "_" + name);
  }

  private static void range(int oid, int multirangeOid, String name, int subtypeOid) {
    RANGES.put(oid, subtypeOid);
    MULTIRANGES.put(multirangeOid, oid);
    NAMES.put(oid, name);
    NAMES.put(multirangeOid, name.replace("range", "multirange"));
  }

  private static void unsupported(int oid, String name) {
    NAMES.putIfAbsent(oid, name);
  }

  /** Whether a built-in type OID has an encoder without further catalog information. */
  public static boolean supportsBuiltin(int oid) {
    return SCALARS.containsKey(oid)
        || ARRAYS.containsKey(oid)
        || RANGES.containsKey(oid)
        || MULTIRANGES.containsKey(oid);
  }

  /** The built-in name for an OID, or null if the registry does not know it. */
  public static String builtinName(int oid) {
    return NAMES.get(oid);
  }

  /**
   * The OID of a built-in type name as registered here (e.g. "int4", "_int4", "int4range"), or -1.
   */
  public static int oidOf(String name) {
    for (Map.Entry<Integer, String> e : NAMES.entrySet()) {
      if (e.getValue().equals(name)) {
        return e.getKey();
      }
    }
    return -1;
  }

  public static String describe(ColumnType type) {
    String name = type.name() != null ? type.name() : builtinName(type.typeOid());
    return (name != null ? name : "type") + " (OID " + type.typeOid() + ")";
  }

  /** Resolve the encoder of a column once; throws with the reason if the type has none. */
  public static FieldCodec resolve(ColumnType type) {
    return resolve(type, 0);
  }

  private static FieldCodec resolve(ColumnType type, int depth) {
    Structural.enter(depth, describe(type));
    if (type.nondeterministicCollation()) {
      throw new RowIdentityException(
          describe(type)
              + " uses a non-deterministic collation: distinct strings "
              + "compare equal under it, so no byte encoding can agree with its equality");
    }
    if (type.isEnum()) {
      return StringCodec.ENUM;
    }
    if (type.fields() != null) {
      List<ColumnType> fields = type.fields();
      if (fields.isEmpty() || fields.size() > io.trellara.identity.RowIdentityEncoder.MAX_FIELDS) {
        throw new RowIdentityException(
            describe(type)
                + " has "
                + fields.size()
                + " fields; 1 to "
                + io.trellara.identity.RowIdentityEncoder.MAX_FIELDS
                + " are supported");
      }
      FieldCodec[] codecs = new FieldCodec[fields.size()];
      for (int i = 0; i < codecs.length; i++) {
        codecs[i] = resolve(fields.get(i), depth + 1);
      }
      return new CompositeCodec(codecs);
    }
    if (type.element() != null) {
      return new ArrayCodec(resolve(type.element(), depth + 1));
    }
    int oid = type.effectiveOid();
    if (oid == 0) {
      return IdentityCodec.INSTANCE;
    }
    FieldCodec scalar = SCALARS.get(oid);
    if (scalar != null) {
      return scalar;
    }
    Integer element = ARRAYS.get(oid);
    if (element != null) {
      return new ArrayCodec(SCALARS.get(element));
    }
    Integer subtype = RANGES.get(oid);
    if (subtype != null) {
      return new RangeCodec(SCALARS.get(subtype));
    }
    Integer range = MULTIRANGES.get(oid);
    if (range != null) {
      return new MultirangeCodec(new RangeCodec(SCALARS.get(RANGES.get(range))));
    }
    throw new RowIdentityException(describe(type) + " has no row identity V2 encoder");
  }
}
