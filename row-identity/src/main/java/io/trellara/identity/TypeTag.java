package io.trellara.identity;

/**
 * Stable V2 type tags (the first byte of every field). Never reused; 0x1B-0x3F are unassigned and
 * rejected; structural tags start at 0x40. {@code fixedWidth} is the payload size, or -1 if
 * variable.
 */
public enum TypeTag {
  BOOL(0x01, "bool", 1),
  INT2(0x02, "int2", 2),
  INT4(0x03, "int4", 4),
  INT8(0x04, "int8", 8),
  OID(0x05, "oid", 4),
  FLOAT4(0x06, "float4", 4),
  FLOAT8(0x07, "float8", 8),
  NUMERIC(0x08, "numeric", -1),
  TEXT(0x09, "text", -1),
  VARCHAR(0x0A, "varchar", -1),
  BPCHAR(0x0B, "bpchar", -1),
  BYTEA(0x0C, "bytea", -1),
  UUID(0x0D, "uuid", 16),
  DATE(0x0E, "date", 4),
  TIME(0x0F, "time", 8),
  TIMESTAMP(0x10, "timestamp", 8),
  TIMESTAMPTZ(0x11, "timestamptz", 8),
  TIMETZ(0x12, "timetz", 12),
  INTERVAL(0x13, "interval", 16),
  INET(0x14, "inet", -1),
  CIDR(0x15, "cidr", -1),
  MACADDR(0x16, "macaddr", 6),
  MACADDR8(0x17, "macaddr8", 8),
  BIT(0x18, "bit", -1),
  VARBIT(0x19, "varbit", -1),
  ENUM(0x1A, "enum", -1),
  ARRAY(0x40, "array", -1),
  RANGE(0x41, "range", -1),
  MULTIRANGE(0x42, "multirange", -1),
  JSONB(0x43, "jsonb", -1),
  COMPOSITE(0x44, "composite", -1),
  /** A complete child identity (join keys): u32 BE length, then its bytes with its own domain. */
  IDENTITY(0x45, "identity", -1);

  private static final TypeTag[] BY_CODE = new TypeTag[256];

  static {
    for (TypeTag t : values()) {
      BY_CODE[t.code] = t;
    }
  }

  private final int code;
  private final String sqlName;
  private final int fixedWidth;

  TypeTag(int code, String sqlName, int fixedWidth) {
    this.code = code;
    this.sqlName = sqlName;
    this.fixedWidth = fixedWidth;
  }

  public int code() {
    return code;
  }

  public String sqlName() {
    return sqlName;
  }

  public int fixedWidth() {
    return fixedWidth;
  }

  public boolean structural() {
    return code >= 0x40;
  }

  public static TypeTag fromCode(int code) {
    TypeTag t = BY_CODE[code & 0xFF];
    if (t == null) {
      throw new RowIdentityException("unassigned type tag 0x" + Integer.toHexString(code & 0xFF));
    }
    return t;
  }
}
