package io.trellara.source.pg;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.StringJoiner;

/**
 * Brings an auto-created publication ({@code publication.autocreate.mode=filtered}) in line with
 * {@code table.include.list} at a task's start: tables the list gained are added, tables it lost
 * are dropped. The ALTER and, when tables were added, a transactional logical message {@value
 * #SIGNAL_PREFIX} naming them commit in ONE transaction, so the stream carries the signal exactly
 * where the tables joined: the source's online snapshot of them is ordered with the stream and, as
 * long as its commit marker is not published, a restart reads the message again (a crash between
 * the ALTER and the snapshot's publication loses nothing; the publication alone would no longer say
 * which tables still need their rows).
 *
 * <p>Only tables the connector put there are ever dropped: each reconciliation records the include
 * list in the publication's comment ({@value #COMMENT_MARK}), and a table leaves the publication
 * when it was in that record and is no longer in the list. A table an administrator added by hand
 * (a heartbeat table, say) stays; a publication with no record (created before this version, or by
 * hand) gets one at the first start and loses nothing then. A FOR ALL TABLES or FOR TABLES IN
 * SCHEMA publication is left as it is.
 *
 * <p>Who may write such a message: only roles that may execute {@code pg_logical_emit_message}; the
 * source trusts the prefix only when PUBLIC may not ({@link #signalMessagesTrusted}, the grant
 * {@code trellara-ddl-capture.sql} revokes), and refuses to add tables otherwise: their snapshot
 * could not be told apart from a forged one.
 */
public final class PublicationReconciler {
  /** The prefix of the transactional logical message that names tables added to capture. */
  public static final String SIGNAL_PREFIX = "trellara.signal";

  /** The first line of such a message; one {@code "schema"."table"} per following line. */
  public static final String ADDED_TABLES = "added-tables";

  /** The first line of the publication's comment that records the include list. */
  static final String COMMENT_MARK =
      "trellara: table.include.list as last reconciled (one table a line; the connector drops a"
          + " table from this publication only when it was listed here):";

  private PublicationReconciler() {}

  /**
   * What the start changes: tables as {@code {schema, table}} pairs, in the include list's order.
   */
  public record Plan(List<String[]> added, List<String[]> removed) {
    public boolean empty() {
      return added.isEmpty() && removed.isEmpty();
    }

    public String describe() {
      return "added " + names(added) + ", removed " + names(removed);
    }
  }

  /**
   * The difference between the include list ({@code schema.table} entries, as the publication was
   * created from) and the tables the publication lists ({@code {schema, table}}).
   */
  public static Plan plan(List<String> includeList, List<String[]> published) {
    return plan(includeList, published, published);
  }

  /**
   * As {@link #plan(List, List)}, dropping only tables of {@code recorded} (the include list of the
   * last reconciliation; null: no record, nothing is dropped).
   */
  public static Plan plan(
      List<String> includeList, List<String[]> published, List<String[]> recorded) {
    Set<String> mine = new java.util.HashSet<>();
    if (recorded != null) {
      for (String[] t : recorded) {
        mine.add(key(t));
      }
    }
    Set<String> have = new LinkedHashSet<>();
    for (String[] t : published) {
      have.add(key(t));
    }
    Set<String> want = new LinkedHashSet<>();
    List<String[]> added = new ArrayList<>();
    for (String entry : includeList) {
      String[] t = SourcePreflight.splitQualified(entry);
      if (want.add(key(t)) && !have.contains(key(t))) {
        added.add(t);
      }
    }
    List<String[]> removed = new ArrayList<>();
    for (String[] t : published) {
      if (!want.contains(key(t)) && mine.contains(key(t))) {
        removed.add(t);
      }
    }
    return new Plan(added, removed);
  }

  /**
   * Reconciles the publication of {@code s} with its include list; a no-op when the connector does
   * not manage the publication or it lists every table of the include list and no other. With
   * {@code signal} false (an initial snapshot follows, which reads the added tables anyway) no
   * message is written. Returns what changed (empty when nothing did).
   *
   * @throws UntrustedSignalException tables would be added but PUBLIC may write logical messages
   */
  public static Plan reconcile(SourceDatabase s, boolean signal, String signalId)
      throws SQLException {
    if (!s.autocreatePublication()) {
      return new Plan(List.of(), List.of());
    }
    try (Connection c = s.endpoint().connect()) {
      c.setAutoCommit(false);
      try {
        if (!listsTables(c, s.publicationName())) {
          c.rollback();
          return new Plan(List.of(), List.of());
        }
        String comment = comment(c, s.publicationName());
        Plan plan =
            plan(s.tables(), listed(c, s.publicationName()), PublicationRecord.parse(comment));
        String record = PublicationRecord.format(COMMENT_MARK, s.tables());
        if (plan.empty()) {
          if (!record.equals(comment)) {
            recordQuietly(c, s.publicationName(), record);
          }
          c.rollback();
          return plan;
        }
        if (signal && !plan.added().isEmpty() && !signalMessagesTrusted(c)) {
          throw new UntrustedSignalException(
              "table.include.list gained "
                  + names(plan.added())
                  + ", but PUBLIC may execute "
                  + String.join(" and ", MessageAuthorship.publicEmitters(c))
                  + ": the message that orders their online snapshot with the stream could be"
                  + " forged by any role that can log in, so the source refuses to add them. Run"
                  + " trellara-ddl-capture.sql (or REVOKE EXECUTE ON FUNCTION"
                  + " pg_catalog.pg_logical_emit_message FROM PUBLIC) as a superuser, then restart"
                  + " the task.");
        }
        String pub = PgNames.quoteIdentifier(s.publicationName());
        try (Statement st = c.createStatement()) {
          if (!plan.added().isEmpty()) {
            st.execute("ALTER PUBLICATION " + pub + " ADD TABLE " + quoted(plan.added()));
          }
          if (!plan.removed().isEmpty()) {
            st.execute("ALTER PUBLICATION " + pub + " DROP TABLE " + quoted(plan.removed()));
          }
        }
        record(c, s.publicationName(), record);
        if (signal && !plan.added().isEmpty()) {
          try (PreparedStatement ps =
              c.prepareStatement("SELECT pg_logical_emit_message(true, ?, ?)")) {
            ps.setString(1, SIGNAL_PREFIX);
            ps.setString(2, message(signalId, plan.added()));
            ps.execute();
          }
        }
        c.commit();
        return plan;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  /**
   * The content of the signal message: {@value #ADDED_TABLES} and the id, then one table a line.
   */
  public static String message(String id, List<String[]> tables) {
    StringJoiner m = new StringJoiner("\n");
    m.add(ADDED_TABLES + " " + id);
    for (String[] t : tables) {
      m.add(PgNames.quoteIdentifier(t[0]) + "." + PgNames.quoteIdentifier(t[1]));
    }
    return m.toString();
  }

  /**
   * True when PUBLIC may not execute pg_logical_emit_message: a {@value #SIGNAL_PREFIX} message was
   * then written by a superuser or a role granted EXECUTE (the connector's, an administrator's).
   */
  public static boolean signalMessagesTrusted(Connection c) throws SQLException {
    return MessageAuthorship.publicEmitters(c).isEmpty();
  }

  /** As {@link #signalMessagesTrusted(Connection)}, on a connection of its own. */
  public static boolean signalMessagesTrusted(PgEndpoint endpoint) throws SQLException {
    try (Connection c = endpoint.connect()) {
      return signalMessagesTrusted(c);
    }
  }

  /** False for a FOR ALL TABLES or FOR TABLES IN SCHEMA publication: those are left as they are. */
  private static boolean listsTables(Connection c, String publication) throws SQLException {
    String schemas =
        c.getMetaData().getDatabaseMajorVersion() >= 15
            ? " OR EXISTS (SELECT 1 FROM pg_publication_namespace n WHERE n.pnpubid = p.oid)"
            : "";
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT NOT (p.puballtables"
                + schemas
                + ") FROM pg_publication p WHERE p.pubname = ?")) {
      ps.setString(1, publication);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  private static String comment(Connection c, String publication) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT obj_description(oid, 'pg_publication') FROM pg_publication WHERE pubname = ?")) {
      ps.setString(1, publication);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  private static void record(Connection c, String publication, String record) throws SQLException {
    // COMMENT takes no parameters: the text is quoted as a literal (names never run as SQL)
    try (Statement st = c.createStatement()) {
      st.execute(
          "COMMENT ON PUBLICATION "
              + PgNames.quoteIdentifier(publication)
              + " IS "
              + PublicationRecord.literal(record));
    }
  }

  /** The record alone (nothing changed): a role that does not own the publication skips it. */
  private static void recordQuietly(Connection c, String publication, String record)
      throws SQLException {
    try {
      record(c, publication, record);
      c.commit();
    } catch (SQLException e) {
      c.rollback();
      org.slf4j.LoggerFactory.getLogger(PublicationReconciler.class)
          .info(
              "The include list could not be recorded in the comment of publication {} ({}):"
                  + " tables later removed from table.include.list stay in it",
              publication,
              e.getMessage());
    }
  }

  /** The tables the publication lists by name (not through FOR ALL TABLES or a schema). */
  static List<String[]> listed(Connection c, String publication) throws SQLException {
    List<String[]> out = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            """
                SELECT n.nspname, k.relname FROM pg_publication_rel pr
                JOIN pg_publication p ON p.oid = pr.prpubid
                JOIN pg_class k ON k.oid = pr.prrelid
                JOIN pg_namespace n ON n.oid = k.relnamespace
                WHERE p.pubname = ? ORDER BY 1, 2""")) {
      ps.setString(1, publication);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(new String[] {rs.getString(1), rs.getString(2)});
        }
      }
    }
    return out;
  }

  private static String quoted(List<String[]> tables) {
    StringJoiner j = new StringJoiner(", ");
    for (String[] t : tables) {
      j.add(PgNames.quoteIdentifier(t[0]) + "." + PgNames.quoteIdentifier(t[1]));
    }
    return j.toString();
  }

  private static String names(List<String[]> tables) {
    StringJoiner j = new StringJoiner(", ", "[", "]");
    for (String[] t : tables) {
      j.add(t[0] + "." + t[1]);
    }
    return j.toString();
  }

  private static String key(String[] t) {
    return t[0] + "\u0000" + t[1];
  }

  /**
   * The include list as the publication's comment records it: a mark line, then one {@code
   * "schema"."table"} a line (quoted as identifiers are, so any name survives).
   */
  static final class PublicationRecord {
    private PublicationRecord() {}

    static String format(String mark, List<String> includeList) {
      StringJoiner j = new StringJoiner("\n");
      j.add(mark);
      Set<String> seen = new java.util.HashSet<>();
      for (String entry : includeList) {
        String[] t = SourcePreflight.splitQualified(entry);
        if (seen.add(key(t))) {
          j.add(PgNames.quoteIdentifier(t[0]) + "." + PgNames.quoteIdentifier(t[1]));
        }
      }
      return j.toString();
    }

    /** The recorded tables; null when there is no record or it cannot be read (drop nothing). */
    static List<String[]> parse(String comment) {
      if (comment == null) {
        return null;
      }
      String[] lines = comment.split("\n", -1);
      if (!lines[0].equals(COMMENT_MARK)) {
        return null;
      }
      List<String[]> out = new ArrayList<>();
      for (int i = 1; i < lines.length; i++) {
        if (lines[i].isEmpty()) {
          continue;
        }
        int[] at = {0};
        String schema = quoted(lines[i], at);
        if (schema == null || at[0] >= lines[i].length() || lines[i].charAt(at[0]) != '.') {
          return null;
        }
        at[0]++;
        String table = quoted(lines[i], at);
        if (table == null || at[0] != lines[i].length()) {
          return null;
        }
        out.add(new String[] {schema, table});
      }
      return out;
    }

    /** A double-quoted identifier at {@code at[0]} ("" for a quote), or null. */
    private static String quoted(String s, int[] at) {
      if (at[0] >= s.length() || s.charAt(at[0]) != '"') {
        return null;
      }
      StringBuilder b = new StringBuilder();
      for (int i = at[0] + 1; i < s.length(); i++) {
        char c = s.charAt(i);
        if (c != '"') {
          b.append(c);
        } else if (i + 1 < s.length() && s.charAt(i + 1) == '"') {
          b.append('"');
          i++;
        } else {
          at[0] = i + 1;
          return b.toString();
        }
      }
      return null;
    }

    /** A string literal of {@code text} for COMMENT, which takes no parameters. */
    static String literal(String text) {
      return "E'" + text.replace("\\", "\\\\").replace("'", "''") + "'";
    }
  }

  /** Tables would be added, but their signal message could be forged: the start is refused. */
  public static final class UntrustedSignalException extends RuntimeException {
    UntrustedSignalException(String message) {
      super(message);
    }
  }
}
