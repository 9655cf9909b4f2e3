package io.trellara.source.pg;

import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.source.capture.CaptureException;
import io.trellara.source.capture.RelationSchema;
import io.trellara.source.routing.PrimaryKeys;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a captured table's primary key from the source catalog, by the relation's OID, in the
 * table's column order (the order a table owned by its primary key hashes in under REPLICA IDENTITY
 * DEFAULT, so a table's derived lane does not depend on its replica identity). Under REPLICA
 * IDENTITY DEFAULT the key flags are the primary key and no connection is opened. The router asks
 * once per relation version; the catalog is read now, not as of the WAL position, which is harmless
 * for a primary key that did not change since (a primary key dropped or added changes the table's
 * Relation message under DEFAULT only).
 */
public final class CatalogPrimaryKeys implements PrimaryKeys {
  private static final String SQL =
      """
      SELECT a.attname FROM pg_index i
      JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
      WHERE i.indrelid = ? AND i.indisprimary ORDER BY a.attnum""";

  private final PgEndpoint endpoint;

  public CatalogPrimaryKeys(PgEndpoint endpoint) {
    this.endpoint = endpoint;
  }

  @Override
  public List<String> of(RelationSchema relation) {
    if (relation.replicaIdentity() == ReplicaIdentity.REPLICA_IDENTITY_DEFAULT) {
      return PrimaryKeys.flaggedColumns(relation);
    }
    try (Connection c = endpoint.connect();
        PreparedStatement ps = c.prepareStatement(SQL)) {
      ps.setLong(1, relation.oid());
      List<String> key = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          key.add(rs.getString(1));
        }
      }
      return key;
    } catch (SQLException e) {
      throw new CaptureException(
          "ownership_key_column",
          "cannot read the primary key of "
              + relation.qualifiedName()
              + " (OID "
              + relation.oid()
              + ") from the catalog: "
              + e.getMessage(),
          e);
    }
  }
}
