package io.trellara.identity;

import static org.assertj.core.api.Assertions.assertThat;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every entry of the built-in type table, against a real server's pg_type. */
class PgTypesIT {
  private static EmbeddedPostgres pg;
  private static Connection conn;

  @BeforeAll
  static void start() throws Exception {
    pg = EmbeddedPostgres.builder().start();
    conn = pg.getPostgresDatabase().getConnection();
  }

  @AfterAll
  static void stop() throws Exception {
    if (conn != null) {
      conn.close();
    }
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void everyBuiltInTypeHasTheServersOidNameSpellingAndArray() throws Exception {
    try (PreparedStatement ps =
        conn.prepareStatement(
            "SELECT typname, format_type(oid, -1), typarray FROM pg_type WHERE oid = ?")) {
      for (PgTypes.PgType t : PgTypes.all()) {
        ps.setInt(1, t.oid());
        try (ResultSet rs = ps.executeQuery()) {
          assertThat(rs.next()).as("OID %d (%s) exists", t.oid(), t.typname()).isTrue();
          assertThat(rs.getString(1)).as("typname of %d", t.oid()).isEqualTo(t.typname());
          // bit without a typmod: format_type quotes it ("bit", which is not bit(1)); the table
          // spells it as the source always did, and a bit column always has a typmod
          String spelled = t.oid() == PgTypes.BIT ? "\"bit\"" : t.sqlName();
          assertThat(rs.getString(2)).as("format_type of %d", t.oid()).isEqualTo(spelled);
          assertThat(rs.getInt(3)).as("typarray of %s", t.typname()).isEqualTo(t.arrayOid());
        }
      }
    }
  }

  @Test
  void everyBuiltInRangeHasTheServersSubtypeAndMultirange() throws Exception {
    try (PreparedStatement ps =
        conn.prepareStatement(
            "SELECT rngsubtype, rngmultitypid FROM pg_range WHERE rngtypid = ?")) {
      int ranges = 0;
      for (PgTypes.PgType t : PgTypes.all()) {
        PgTypes.PgRange r = PgTypes.range(t.oid());
        if (r == null) {
          continue;
        }
        ranges++;
        ps.setInt(1, r.oid());
        try (ResultSet rs = ps.executeQuery()) {
          assertThat(rs.next()).isTrue();
          assertThat(rs.getInt(1)).as("subtype of %s", t.typname()).isEqualTo(r.subtypeOid());
          assertThat(rs.getInt(2)).as("multirange of %s", t.typname()).isEqualTo(r.multirangeOid());
        }
      }
      assertThat(ranges).isEqualTo(6);
    }
  }
}
