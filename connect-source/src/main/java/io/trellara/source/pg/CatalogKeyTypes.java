package io.trellara.source.pg;

import io.trellara.identity.ColumnType;
import io.trellara.identity.RowIdentityTypes;
import io.trellara.source.capture.CaptureException;
import io.trellara.source.routing.KeyTypes;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Resolves user types of ownership columns from the source's catalog: an enum (encoded by its
 * label, never its OID), a domain (encoded as its base type, through every level of a domain over a
 * domain; a domain over an enum is encoded by the label). What an OID is (enum, domain, base type)
 * and a domain's base type never change for that OID, so the answer is cached for the life of the
 * task, and it does not matter that the catalog is read now rather than as of the WAL position.
 * Built-in types need no connection; one is opened only for the first user type seen.
 */
public final class CatalogKeyTypes implements KeyTypes {
  /** Deeper than any domain chain PostgreSQL builds in practice; a bound against a cycle. */
  private static final int MAX_DOMAIN_DEPTH = 32;

  private final PgEndpoint endpoint;
  private final Map<Long, ColumnType> resolved = new ConcurrentHashMap<>();

  public CatalogKeyTypes(PgEndpoint endpoint) {
    this.endpoint = endpoint;
  }

  @Override
  public ColumnType resolve(long typeOid, int typmod) {
    if (typeOid <= 0 || typeOid > Integer.MAX_VALUE || RowIdentityTypes.supports((int) typeOid)) {
      return ColumnType.of((int) typeOid, typmod);
    }
    return resolved.computeIfAbsent(typeOid, oid -> lookUp((int) typeOid, typmod));
  }

  private ColumnType lookUp(int typeOid, int typmod) {
    try (Connection c = endpoint.connect()) {
      return resolve(c, typeOid, typmod);
    } catch (SQLException e) {
      throw new CaptureException(
          "ownership_key_column",
          "cannot read the catalog entry of type OID " + typeOid + ": " + e.getMessage(),
          e);
    }
  }

  /** The row identity type of {@code typeOid}, read from the catalog {@code c} is connected to. */
  public static ColumnType resolve(Connection c, int typeOid, int typmod) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT typtype::text, typbasetype, typtypmod, format_type(oid, NULL) FROM pg_type"
                + " WHERE oid = ?")) {
      int oid = typeOid;
      int mod = typmod;
      for (int depth = 0; depth < MAX_DOMAIN_DEPTH; depth++) {
        ps.setLong(1, oid);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            return ColumnType.of(typeOid, typmod); // unknown: the encoder refuses it
          }
          String kind = rs.getString(1);
          if ("e".equals(kind)) {
            return ColumnType.enumType(typeOid, rs.getString(4));
          }
          if (!"d".equals(kind)) {
            return oid == typeOid
                ? ColumnType.of(typeOid, typmod)
                : ColumnType.domain(typeOid, oid, mod);
          }
          oid = (int) rs.getLong(2);
          mod = mod >= 0 ? mod : rs.getInt(3);
        }
      }
    }
    return ColumnType.of(typeOid, typmod);
  }
}
