package io.trellara.protocol;

import io.trellara.protocol.codec.Checksums;
import io.trellara.protocol.v1.ColumnDefinitionOrBuilder;
import io.trellara.protocol.v1.SchemaVersionOrBuilder;
import java.nio.charset.StandardCharsets;

/**
 * The one implementation of a {@code SchemaVersion}'s fingerprint: the lower-case 16-hex-digit
 * xxh3_64 (seed 0) of the UTF-8 bytes of this canonical description, every name length-prefixed so
 * no name can forge a separator:
 *
 * <pre>
 * trellara.schema.v1|{len}:{schema}|{len}:{table}|{column count}
 *   then per column in relation order: |{len}:{name},{type OID},{typmod},{1 if key else 0}
 * </pre>
 *
 * {@code len} is the name's length in UTF-16 code units (Java's {@code String.length()}), numbers
 * are ASCII decimal without sign or leading zeros except typmod's {@code -} (typmod -1 means none),
 * the type OID is unsigned. Example: {@code
 * trellara.schema.v1|6:public|6:orders|2|2:id,23,-1,1|4:note,1043,204,0}. docs/protocol.md gives
 * the bytes and the resulting fingerprint of a worked example.
 */
public final class SchemaFingerprint {
  private static final String MAGIC = "trellara.schema.v1|";

  private SchemaFingerprint() {}

  /**
   * The fingerprint of the relation and columns of {@code schema} (its own fingerprint field is
   * ignored).
   */
  public static String of(SchemaVersionOrBuilder schema) {
    return Checksums.hex(Checksums.xxh3(canonicalDescription(schema)));
  }

  /** Whether the schema version carries the fingerprint of its own relation and columns. */
  public static boolean matches(SchemaVersionOrBuilder schema) {
    return of(schema).equals(schema.getFingerprint());
  }

  /** The UTF-8 bytes that are hashed. */
  public static byte[] canonicalDescription(SchemaVersionOrBuilder schema) {
    int columns = schema.getColumnsCount();
    StringBuilder sb = new StringBuilder(64 + columns * 24).append(MAGIC);
    lengthPrefixed(sb, schema.getRelation().getSchema()).append('|');
    lengthPrefixed(sb, schema.getRelation().getTable()).append('|').append(columns);
    for (int i = 0; i < columns; i++) {
      ColumnDefinitionOrBuilder c = schema.getColumnsOrBuilder(i);
      sb.append('|');
      lengthPrefixed(sb, c.getName())
          .append(',')
          .append(Integer.toUnsignedLong(c.getTypeOid()))
          .append(',')
          .append(c.getTypeModifier())
          .append(',')
          .append(c.getKey() ? '1' : '0');
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static StringBuilder lengthPrefixed(StringBuilder sb, String s) {
    return sb.append(s.length()).append(':').append(s);
  }
}
