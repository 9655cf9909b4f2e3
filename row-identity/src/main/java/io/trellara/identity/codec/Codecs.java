package io.trellara.identity.codec;

import io.trellara.identity.ColumnType;
import io.trellara.identity.PgTypes;
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

  public static final int JSONB_OID = PgTypes.JSONB;
  public static final int JSONB_ARRAY_OID = 3807;

  static {
    scalar("bool", BoolCodec.INSTANCE);
    scalar("int2", IntegerCodec.INT2);
    scalar("int4", IntegerCodec.INT4);
    scalar("int8", IntegerCodec.INT8);
    scalar("oid", IntegerCodec.OID);
    scalar("float4", FloatCodec.FLOAT4);
    scalar("float8", FloatCodec.FLOAT8);
    scalar("numeric", NumericCodec.INSTANCE);
    scalar("text", StringCodec.TEXT);
    scalar("varchar", StringCodec.VARCHAR);
    scalar("bpchar", StringCodec.BPCHAR);
    scalar("bytea", ByteaCodec.INSTANCE);
    scalar("uuid", UuidCodec.INSTANCE);
    scalar("date", DateTimeCodec.DATE);
    scalar("time", DateTimeCodec.TIME);
    scalar("timestamp", DateTimeCodec.TIMESTAMP);
    scalar("timestamptz", DateTimeCodec.TIMESTAMPTZ);
    scalar("timetz", DateTimeCodec.TIMETZ);
    scalar("interval", IntervalCodec.INSTANCE);
    scalar("inet", NetworkCodec.INET);
    scalar("cidr", NetworkCodec.CIDR);
    scalar("macaddr", NetworkCodec.MACADDR);
    scalar("macaddr8", NetworkCodec.MACADDR8);
    scalar("bit", BitCodec.BIT);
    scalar("varbit", BitCodec.VARBIT);
    scalar("jsonb", JsonbCodec.INSTANCE);
    range("int4range");
    range("int8range");
    range("numrange");
    range("tsrange");
    range("tstzrange");
    range("daterange");
    // Known but unsupported, so rejections can name them.
    unsupported("json");
    unsupported("xml");
    unsupported("char");
    unsupported("name");
    unsupported("money");
    unsupported("point");
    unsupported("lseg");
    unsupported("path");
    unsupported("box");
    unsupported("polygon");
    unsupported("line");
    unsupported("circle");
    unsupported("tsvector");
    unsupported("tsquery");
    unsupported("record");
    unsupported("unknown");
    unsupported("pg_lsn");
    unsupported("regproc");
    unsupported("regclass");
    unsupported("regtype");
    unsupported("xid");
    unsupported("xid8");
    unsupported("tid");
    unsupported("cid");
  }

  private Codecs() {}

  /** A scalar type and its array, by {@code typname}; OIDs from {@link PgTypes}. */
  private static void scalar(String typname, FieldCodec codec) {
    PgTypes.PgType t = PgTypes.named(typname);
    SCALARS.put(t.oid(), codec);
    ARRAYS.put(t.arrayOid(), t.oid());
    NAMES.put(t.oid(), t.typname());
    NAMES.put(t.arrayOid(), "_" + t.typname());
  }

  /** A range type and its multirange, by {@code typname}; OIDs from {@link PgTypes}. */
  private static void range(String typname) {
    PgTypes.PgType t = PgTypes.named(typname);
    PgTypes.PgRange r = PgTypes.range(t.oid());
    RANGES.put(t.oid(), r.subtypeOid());
    MULTIRANGES.put(r.multirangeOid(), t.oid());
    NAMES.put(t.oid(), t.typname());
    NAMES.put(r.multirangeOid(), PgTypes.byOid(r.multirangeOid()).typname());
  }

  /** A type known but unsupported, so rejections can name it. */
  private static void unsupported(String typname) {
    PgTypes.PgType t = PgTypes.named(typname);
    NAMES.putIfAbsent(t.oid(), t.typname());
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
