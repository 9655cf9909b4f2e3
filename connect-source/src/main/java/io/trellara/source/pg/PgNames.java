package io.trellara.source.pg;

import java.nio.charset.StandardCharsets;

/**
 * PostgreSQL's own naming rules for what the source creates or names on the server, and the quoting
 * each use needs. A rule broken here would otherwise surface as a late server error, a silently
 * truncated name (identifiers longer than 63 bytes are cut) or a replication command that means
 * something else.
 */
public final class PgNames {
  /** NAMEDATALEN - 1: the longest identifier PostgreSQL keeps without truncating it. */
  public static final int MAX_NAME_BYTES = 63;

  private PgNames() {}

  /**
   * PostgreSQL's ReplicationSlotValidateName: lower-case letters, digits and underscore, 1 to 63
   * bytes. The slot name is also written unquoted into START_REPLICATION, so nothing else may pass.
   *
   * @return null when valid, else what is wrong and the rule
   */
  public static String slotNameProblem(String name) {
    if (name == null || name.isEmpty()) {
      return "A replication slot name must not be empty.";
    }
    if (bytes(name) > MAX_NAME_BYTES) {
      return "Replication slot name '"
          + name
          + "' is "
          + bytes(name)
          + " bytes long. PostgreSQL slot names"
          + " may contain only lower-case letters (a-z), digits and the underscore, at most "
          + MAX_NAME_BYTES
          + " bytes.";
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
        return "Replication slot name '"
            + name
            + "' contains '"
            + c
            + "'. PostgreSQL slot names may"
            + " contain only lower-case letters (a-z), digits and the underscore, at most "
            + MAX_NAME_BYTES
            + " bytes.";
      }
    }
    return null;
  }

  /**
   * A publication name is an identifier: any character but NUL, at most 63 bytes (longer names are
   * silently truncated by PostgreSQL, so the connector would look up a publication other than the
   * one created).
   *
   * @return null when valid, else what is wrong and the rule
   */
  public static String publicationNameProblem(String name) {
    if (name == null || name.isEmpty()) {
      return "A publication name must not be empty.";
    }
    if (name.indexOf('\0') >= 0) {
      return "A publication name must not contain the NUL character.";
    }
    if (bytes(name) > MAX_NAME_BYTES) {
      return "Publication name '"
          + name
          + "' is "
          + bytes(name)
          + " bytes long (UTF-8); PostgreSQL"
          + " identifiers are at most "
          + MAX_NAME_BYTES
          + " bytes and longer ones are silently truncated.";
    }
    return null;
  }

  /** A double-quoted SQL identifier; embedded quotes doubled. */
  public static String quoteIdentifier(String identifier) {
    return '"' + identifier.replace("\"", "\"\"") + '"';
  }

  /**
   * The value of the pgoutput {@code publication_names} option. pgoutput splits it as an identifier
   * list (so an unquoted name would be lower-cased and a comma would split it): the name is
   * double-quoted. pgjdbc puts the value between single quotes without escaping: single quotes are
   * doubled here.
   */
  public static String publicationNamesOption(String publication) {
    return quoteIdentifier(publication).replace("'", "''");
  }

  private static int bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }
}
