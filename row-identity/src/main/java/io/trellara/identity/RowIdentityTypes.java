package io.trellara.identity;

import io.trellara.identity.codec.Codecs;
import java.util.Map;
import java.util.Optional;

/**
 * Which key column types have a V2 encoder, and why a column is rejected (for config validation).
 */
public final class RowIdentityTypes {
  private static final Map<String, String> HINTS =
      Map.of(
          "json", "json has no equality operator; use jsonb",
          "money", "money output depends on lc_monetary; use numeric",
          "name", "cast the column to text in a generated key or use text",
          "xml", "xml has no equality operator");

  private RowIdentityTypes() {}

  /** Whether a built-in type OID (scalar, array, range or multirange) has an encoder. */
  public static boolean supports(int typeOid) {
    return Codecs.supportsBuiltin(typeOid);
  }

  /** Whether a fully described column type (domains, enums, composites included) has an encoder. */
  public static boolean supports(ColumnType type) {
    return rejectionReason("?", type).isEmpty();
  }

  /**
   * Empty if the column can be an identity field, else a message naming the column, its type and
   * the rejected property, for example {@code column "payload" has type json (OID 114), which has
   * no row identity V2 encoder; json has no equality operator; use jsonb}.
   */
  public static Optional<String> rejectionReason(String columnName, ColumnType type) {
    try {
      Codecs.resolve(type);
      return Optional.empty();
    } catch (RowIdentityException e) {
      String name = Codecs.builtinName(type.effectiveOid());
      String hint = name == null ? null : HINTS.get(name);
      String described = Codecs.describe(type);
      String reason =
          "column \""
              + columnName
              + "\" has type "
              + described
              + (e.getMessage().equals(described + " has no row identity V2 encoder")
                  ? ", which has no row identity V2 encoder"
                  : ", which cannot be a row identity V2 field: " + e.getMessage());
      return Optional.of(hint == null ? reason : reason + "; " + hint);
    }
  }

  /** Built-in type name of an OID, or null if unknown to the registry. */
  public static String typeName(int typeOid) {
    return Codecs.builtinName(typeOid);
  }
}
