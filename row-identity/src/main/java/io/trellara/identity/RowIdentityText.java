package io.trellara.identity;

import io.trellara.identity.codec.Codecs;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Text-facing facade for the CLI ({@code trellara identity encode|decode}): type names and value
 * strings in, identity bytes or hex out; hex in, typed fields out. Not for hot paths (it resolves
 * per call).
 */
public final class RowIdentityText {
  private static final Map<String, String> ALIASES =
      Map.ofEntries(
          Map.entry("boolean", "bool"),
          Map.entry("smallint", "int2"),
          Map.entry("integer", "int4"),
          Map.entry("int", "int4"),
          Map.entry("bigint", "int8"),
          Map.entry("real", "float4"),
          Map.entry("double precision", "float8"),
          Map.entry("decimal", "numeric"),
          Map.entry("character varying", "varchar"),
          Map.entry("character", "bpchar"),
          Map.entry("char", "bpchar"),
          Map.entry("timestamp without time zone", "timestamp"),
          Map.entry("timestamp with time zone", "timestamptz"),
          Map.entry("time without time zone", "time"),
          Map.entry("time with time zone", "timetz"),
          Map.entry("bit varying", "varbit"));

  private RowIdentityText() {}

  /** Domain by name, case-insensitive: "scan_key", "SCAN_KEY", "scan-key". */
  public static RowIdentityDomain domain(String name) {
    try {
      return RowIdentityDomain.valueOf(name.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
    } catch (IllegalArgumentException e) {
      throw new RowIdentityException("unknown identity domain '" + name + "'");
    }
  }

  /**
   * A column type from a SQL type name: built-in names and their SQL aliases, a typmod suffix
   * ("numeric(10,2)", "varchar(20)", ignored for encoding), "[]" for arrays, range and multirange
   * names, "enum" for any enum (labels), "record(type, ...)" for a composite, "identity" for a
   * nested child identity (hex value).
   */
  public static ColumnType columnType(String typeName) {
    String name = typeName.trim().toLowerCase(Locale.ROOT);
    if (name.endsWith("[]")) {
      ColumnType element = columnType(name.substring(0, name.length() - 2));
      int arrayOid = Codecs.oidOf("_" + Codecs.builtinName(element.effectiveOid()));
      if (element.isEnum() || element.effectiveOid() == 0 || arrayOid < 0) {
        return ColumnType.arrayOf(arrayOid < 0 ? 0 : arrayOid, element);
      }
      return ColumnType.of(arrayOid);
    }
    if (name.startsWith("record(") && name.endsWith(")")) {
      List<ColumnType> fields = new ArrayList<>();
      for (String f : splitTopLevel(name.substring(7, name.length() - 1))) {
        fields.add(columnType(f));
      }
      return ColumnType.composite(-1, "record", fields);
    }
    int paren = name.indexOf('(');
    if (paren > 0 && name.endsWith(")")) {
      name = name.substring(0, paren).trim();
    }
    name = ALIASES.getOrDefault(name, name);
    if (name.equals("enum")) {
      return ColumnType.enumType(-1, "enum");
    }
    if (name.equals("identity")) {
      return ColumnType.childIdentity();
    }
    int oid = Codecs.oidOf(name);
    if (oid < 0) {
      throw new RowIdentityException("unknown type name '" + typeName + "'");
    }
    return ColumnType.of(oid);
  }

  /** Split on commas outside parentheses: "int4, numeric(10,2)" is two names. */
  private static List<String> splitTopLevel(String s) {
    List<String> parts = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (c == ',' && depth == 0) {
        parts.add(s.substring(start, i));
        start = i + 1;
      }
    }
    parts.add(s.substring(start));
    return parts;
  }

  /** Encode one identity; a null value is SQL NULL. */
  public static byte[] encode(
      RowIdentityDomain domain, List<String> typeNames, List<String> values) {
    if (typeNames.size() != values.size()) {
      throw new RowIdentityException(typeNames.size() + " types but " + values.size() + " values");
    }
    List<ColumnType> types = new ArrayList<>(typeNames.size());
    for (String t : typeNames) {
      types.add(columnType(t));
    }
    return RowIdentityEncoder.forColumns(domain, types)
        .encodeStrings(values.toArray(new String[0]));
  }

  public static String encodeHex(
      RowIdentityDomain domain, List<String> typeNames, List<String> values) {
    return toHex(encode(domain, typeNames, values));
  }

  public static DecodedIdentity decode(byte[] identity) {
    return RowIdentityDecoder.decode(identity);
  }

  /** Decode from hex, with or without a leading {@code \x} or {@code 0x}; whitespace is ignored. */
  public static DecodedIdentity decodeHex(String hex) {
    return decode(fromHex(hex));
  }

  public static String toHex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

  public static byte[] fromHex(String hex) {
    String h = hex.strip().replaceAll("\\s+", "");
    if (h.startsWith("\\x") || h.startsWith("0x")) {
      h = h.substring(2);
    }
    try {
      return HexFormat.of().parseHex(h);
    } catch (IllegalArgumentException e) {
      throw new RowIdentityException("invalid hex: " + e.getMessage());
    }
  }
}
