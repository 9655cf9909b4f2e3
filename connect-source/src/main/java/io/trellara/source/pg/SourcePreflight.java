package io.trellara.source.pg;

import io.trellara.identity.ColumnType;
import io.trellara.identity.RowIdentityTypes;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The checks {@code validate()} and task start run against the live server: logical WAL, a UTF8
 * database, the replication privilege, who may write DDL messages ({@link MessageAuthorship}), and
 * tables the protocol can carry (primary key, REPLICA IDENTITY DEFAULT, or in partitioned mode FULL
 * or USING INDEX on an index holding the primary key; key columns with a row identity V2 encoder
 * and deterministic collation), and in partitioned mode the ownership columns ({@link
 * OwnershipPreflight}). Each problem names the setting to change.
 */
public final class SourcePreflight {
  static final String HOST_PROPERTY = "database.hostname";
  static final String USER_PROPERTY = "database.user";
  static final String DBNAME_PROPERTY = "database.dbname";
  static final String TABLES_PROPERTY = "table.include.list";
  static final String OWNERSHIP_PROPERTY = "dataset.partitioned.ownership_keys";

  private SourcePreflight() {}

  public static List<SourceProblem> check(SourceDatabase s) {
    List<SourceProblem> problems = new ArrayList<>();
    try (Connection c = s.endpoint().connect()) {
      walLevel(c, problems);
      if (s.endpoint().failover()) {
        FailoverSlots.check(c, problems);
      }
      serverEncoding(c, s, problems);
      replicationPrivilege(c, s, problems);
      MessageAuthorship.check(c, s, problems);
      List<String> tables = tablesToCheck(c, s, problems);
      for (String table : tables) {
        OwnershipPreflight.CapturedTable t = table(c, table, s.partitioned(), problems);
        if (s.partitioned() && t != null) {
          OwnershipPreflight.check(c, t, s.ownershipKeys().columnsOf(table), problems);
        }
      }
      if (s.partitioned()) {
        for (String owned : s.ownershipKeys().asMap().keySet()) {
          if (!tables.contains(owned)) {
            problems.add(
                new SourceProblem(
                    OWNERSHIP_PROPERTY,
                    "An ownership key is configured for "
                        + owned
                        + ", which is not captured. Fix the table name or capture the table."));
          }
        }
      }
    } catch (SQLException e) {
      problems.add(
          new SourceProblem(
              HOST_PROPERTY,
              "Cannot connect to "
                  + s.endpoint()
                  + ": "
                  + e.getMessage()
                  + " (SQLSTATE "
                  + e.getSQLState()
                  + "). Check host, port, database, user, password and TLS"
                  + " settings, and that pg_hba.conf admits this worker."));
    }
    return problems;
  }

  private static void walLevel(Connection c, List<SourceProblem> problems) throws SQLException {
    String level = single(c, "SHOW wal_level");
    if (!"logical".equals(level)) {
      problems.add(
          new SourceProblem(
              HOST_PROPERTY,
              "The server runs with wal_level="
                  + level
                  + "; logical"
                  + " decoding needs wal_level=logical. Set it in postgresql.conf (ALTER SYSTEM SET wal_level ="
                  + " logical) and restart PostgreSQL."));
    }
  }

  /**
   * Text values are carried as UTF-8 (the protocol's strings are UTF-8 and the sink binds them as
   * such): pgoutput sends them in the database's encoding, and under SQL_ASCII the server stores
   * whatever bytes a client sends, so a Latin-1 byte would be published as U+FFFD or refused by the
   * protocol. Only a UTF8 database can be captured faithfully.
   */
  private static void serverEncoding(Connection c, SourceDatabase s, List<SourceProblem> problems)
      throws SQLException {
    String encoding = single(c, "SHOW server_encoding");
    if (!"UTF8".equals(encoding)) {
      problems.add(
          new SourceProblem(
              DBNAME_PROPERTY,
              "Database "
                  + s.endpoint().database()
                  + " has server_encoding "
                  + encoding
                  + "; the source carries text values as UTF-8, so it needs a UTF8 database"
                  + (encoding.equals("SQL_ASCII")
                      ? " (SQL_ASCII stores any bytes a client sends, unchecked: they cannot be"
                          + " read back as UTF-8 faithfully)"
                      : "")
                  + ". Capture a database created with ENCODING 'UTF8' (dump and restore into one"
                  + " to convert)."));
    }
  }

  private static void replicationPrivilege(
      Connection c, SourceDatabase s, List<SourceProblem> problems) throws SQLException {
    String ok =
        single(
            c,
            "SELECT (rolreplication OR rolsuper)::text FROM pg_roles WHERE rolname = current_user");
    if (!"true".equals(ok)) {
      problems.add(
          new SourceProblem(
              USER_PROPERTY,
              "User '"
                  + s.endpoint().user()
                  + "' lacks the REPLICATION"
                  + " attribute. Run ALTER ROLE \""
                  + s.endpoint().user()
                  + "\" WITH REPLICATION as a superuser,"
                  + " or connect as a role that has it."));
    }
  }

  private static List<String> tablesToCheck(
      Connection c, SourceDatabase s, List<SourceProblem> problems) throws SQLException {
    List<String> tables = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT schemaname || '.' || tablename FROM pg_publication_tables WHERE pubname = ?")) {
      ps.setString(1, s.publicationName());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          tables.add(rs.getString(1));
        }
      }
    }
    if (tables.isEmpty()) {
      if (!s.autocreatePublication()) {
        problems.add(
            new SourceProblem(
                "publication.name",
                "Publication '"
                    + s.publicationName()
                    + "' does"
                    + " not exist or has no tables. Create it (CREATE PUBLICATION ... FOR TABLE ...) or set"
                    + " publication.autocreate.mode=filtered with "
                    + TABLES_PROPERTY
                    + "."));
      }
      tables.addAll(s.tables());
    } else if (s.autocreatePublication()) {
      // tables the include list gained are added to the publication at the start: check them too
      for (String t : s.tables()) {
        if (!tables.contains(t) && !tables.contains("public." + t)) {
          tables.add(t);
        }
      }
    }
    return tables;
  }

  /**
   * The table's replica identity, judged: DEFAULT always; FULL, or USING INDEX on an index holding
   * the primary key, in partitioned scale mode (they carry non-key ownership columns in deletes and
   * key changes, docs/boundary-modes.md); NOTHING never.
   */
  private static OwnershipPreflight.CapturedTable table(
      Connection c, String qualified, boolean partitioned, List<SourceProblem> problems)
      throws SQLException {
    String sql =
        """
                SELECT c.oid, c.relreplident::text, (SELECT count(*) FROM pg_index i
                        WHERE i.indrelid = c.oid AND i.indisprimary)
                FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = ? AND c.relname = ? AND c.relkind IN ('r', 'p')""";
    String[] parts = splitQualified(qualified);
    long oid;
    char identity;
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, parts[0]);
      ps.setString(2, parts[1]);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          problems.add(
              new SourceProblem(
                  TABLES_PROPERTY,
                  "Table "
                      + qualified
                      + " does not exist. Fix "
                      + TABLES_PROPERTY
                      + " (schema.table) or create the table."));
          return null;
        }
        oid = rs.getLong(1);
        if (rs.getLong(3) == 0) {
          problems.add(
              new SourceProblem(
                  TABLES_PROPERTY,
                  "Table "
                      + qualified
                      + " has no primary key;"
                      + " protocol 1 carries primary-key tables only. Add a primary key or remove the table"
                      + " from "
                      + TABLES_PROPERTY
                      + " / the publication."));
          return null;
        }
        identity = rs.getString(2).charAt(0);
      }
    }
    OwnershipPreflight.CapturedTable t =
        new OwnershipPreflight.CapturedTable(
            qualified,
            parts[0],
            parts[1],
            oid,
            identity,
            keyColumns(c, qualified, oid, problems),
            OwnershipPreflight.identityIndex(c, oid));
    String refusal = identityRefusal(t, partitioned);
    if (refusal != null) {
      problems.add(new SourceProblem(TABLES_PROPERTY, refusal));
      return null;
    }
    return t;
  }

  private static String identityRefusal(OwnershipPreflight.CapturedTable t, boolean partitioned) {
    if (t.identity() == 'd') {
      return null;
    }
    String alter = "Run " + t.alterIdentity("DEFAULT") + '.';
    if (t.identity() == 'n' || !partitioned) {
      return "Table "
          + t.qualified()
          + " has REPLICA IDENTITY "
          + identityName(String.valueOf(t.identity()))
          + "; protocol 1 supports REPLICA IDENTITY DEFAULT only"
          + (t.identity() == 'n'
              ? ""
              : " (partitioned_scale_mode also takes FULL, or USING INDEX on an index holding"
                  + " the primary key, to route by non-key columns)")
          + ". "
          + alter;
    }
    if (t.identity() == 'i' && !t.identityIndexHoldsPrimaryKey()) {
      return "Table "
          + t.qualified()
          + " has REPLICA IDENTITY USING INDEX "
          + PgNames.quoteIdentifier(t.identityIndex().name())
          + " on "
          + t.identityIndex().columns()
          + ", which does not hold its primary key "
          + t.primaryKeyNames()
          + ": its deletes would not carry the key the sink finds rows by. "
          + alter
          + " (or "
          + t.alterIdentity("FULL")
          + ").";
    }
    return null;
  }

  private static List<OwnershipPreflight.KeyColumn> keyColumns(
      Connection c, String qualified, long oid, List<SourceProblem> problems) throws SQLException {
    List<OwnershipPreflight.KeyColumn> key = new ArrayList<>();
    String sql =
        """
                SELECT a.attname, t.oid, format_type(a.atttypid, a.atttypmod), t.typtype::text,
                       COALESCE(bt.oid, 0), COALESCE(col.collisdeterministic, true), COALESCE(col.collname, '')
                FROM pg_index i
                JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
                JOIN pg_type t ON t.oid = a.atttypid
                LEFT JOIN pg_type bt ON t.typtype = 'd' AND bt.oid = t.typbasetype
                LEFT JOIN pg_collation col ON col.oid = a.attcollation
                WHERE i.indrelid = ? AND i.indisprimary ORDER BY a.attnum""";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setLong(1, oid);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String column = rs.getString(1);
          int typeOid = (int) rs.getLong(2);
          String typeName = rs.getString(3);
          // enums by label, domains (over domains, over enums) as their base: one resolution
          // shared with the router, so validate() and routing cannot disagree
          ColumnType type = CatalogKeyTypes.resolve(c, typeOid, -1);
          String refusal = RowIdentityTypes.rejectionReason(column, type).orElse(null);
          key.add(new OwnershipPreflight.KeyColumn(column, refusal));
          if (refusal != null) {
            problems.add(
                new SourceProblem(
                    TABLES_PROPERTY,
                    "Key column \""
                        + column
                        + "\" of "
                        + qualified
                        + " has type "
                        + typeName
                        + " (OID "
                        + typeOid
                        + "), which has no row identity V2"
                        + " encoder, so its rows cannot be identified exactly. Change the key's type or"
                        + " remove the table from "
                        + TABLES_PROPERTY
                        + " / the publication."));
          }
          if (!rs.getBoolean(6)) {
            problems.add(
                new SourceProblem(
                    TABLES_PROPERTY,
                    "Key column \""
                        + column
                        + "\" of "
                        + qualified
                        + " uses the non-deterministic collation "
                        + rs.getString(7)
                        + ": equal keys could"
                        + " differ in bytes. Use a deterministic collation (e.g. \"C\") for key columns."));
          }
        }
      }
    }
    return key;
  }

  static String[] splitQualified(String qualified) {
    int dot = qualified.indexOf('.');
    return dot < 0
        ? new String[] {"public", qualified.trim()}
        : new String[] {qualified.substring(0, dot).trim(), qualified.substring(dot + 1).trim()};
  }

  static String identityName(String code) {
    return switch (code) {
      case "n" -> "NOTHING";
      case "f" -> "FULL";
      case "i" -> "USING INDEX";
      default -> "DEFAULT";
    };
  }

  private static String single(Connection c, String sql) throws SQLException {
    try (var st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    }
  }
}
