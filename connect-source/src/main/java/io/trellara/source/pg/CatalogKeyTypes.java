package io.trellara.source.pg;

import io.trellara.identity.ColumnType;
import io.trellara.identity.RowIdentityTypes;
import io.trellara.source.capture.CaptureException;
import io.trellara.source.routing.KeyTypes;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Resolves user types of ownership columns from the source's catalog: an enum (encoded by its
 * label, never its OID), a domain (encoded as its base type, through every level of a domain over a
 * domain; a domain over an enum is encoded by the label), an array of user types, a composite (its
 * attributes' types, resolved the same way). What an OID is (enum, domain, base type) and a
 * domain's base type never change for that OID, so the answer is cached for the life of the task,
 * and it does not matter that the catalog is read now rather than as of the WAL position. Built-in
 * types need no connection; one is opened only for the first user type seen.
 */
public final class CatalogKeyTypes implements KeyTypes {
  /** Row identity's nesting limit, also a bound against a catalog cycle. */
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
    return resolve(c, typeOid, typmod, 0);
  }

  private static ColumnType resolve(Connection c, int typeOid, int typmod, int depth)
      throws SQLException {
    if (RowIdentityTypes.supports(typeOid) || depth > MAX_DOMAIN_DEPTH) {
      return ColumnType.of(typeOid, typmod); // built in, or too deep: the encoder decides
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT typtype::text, typbasetype, typtypmod, format_type(oid, NULL), typcategory::text,"
                + " typelem, typrelid FROM pg_type WHERE oid = ?")) {
      ps.setLong(1, typeOid);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return ColumnType.of(typeOid, typmod); // unknown: the encoder refuses it
        }
        String kind = rs.getString(1);
        int elem = (int) rs.getLong(6);
        if ("e".equals(kind)) {
          return ColumnType.enumType(typeOid, rs.getString(4));
        }
        if ("d".equals(kind)) {
          ColumnType base =
              resolve(c, (int) rs.getLong(2), typmod >= 0 ? typmod : rs.getInt(3), depth + 1);
          // a domain over an enum, a composite or an array of user types is encoded as that type
          return base.isEnum() || base.fields() != null || base.element() != null
              ? base
              : ColumnType.domain(typeOid, base.effectiveOid(), base.typmod());
        }
        if ("A".equals(rs.getString(5)) && elem != 0) {
          return ColumnType.arrayOf(typeOid, resolve(c, elem, typmod, depth + 1));
        }
        if ("c".equals(kind)) {
          return ColumnType.composite(
              typeOid, rs.getString(4), fields(c, rs.getLong(7), depth + 1));
        }
        return ColumnType.of(typeOid, typmod);
      }
    }
  }

  /** A composite's attributes in order, as record_out writes them (dropped ones are not). */
  private static List<ColumnType> fields(Connection c, long relid, int depth) throws SQLException {
    List<int[]> attributes = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT atttypid, atttypmod FROM pg_attribute WHERE attrelid = ? AND attnum > 0"
                + " AND NOT attisdropped ORDER BY attnum")) {
      ps.setLong(1, relid);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          attributes.add(new int[] {(int) rs.getLong(1), rs.getInt(2)});
        }
      }
    }
    List<ColumnType> fields = new ArrayList<>();
    for (int[] a : attributes) {
      fields.add(resolve(c, a[0], a[1], depth));
    }
    return fields;
  }
}
