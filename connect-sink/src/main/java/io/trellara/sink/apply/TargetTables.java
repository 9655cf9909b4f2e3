package io.trellara.sink.apply;

import io.trellara.protocol.v1.ColumnDefinition;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.SchemaVersion;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks once per session that a target table exists, and (only when enabled) creates a missing one from the
 * schema version carried with the change (its envelope's or its chunk's). Column types are resolved by the
 * target ({@code to_regtype} and {@code format_type}), never pasted from the wire into SQL.
 */
final class TargetTables {
    private final TargetSession session;
    private final boolean createMissing;

    TargetTables(TargetSession session, boolean createMissing) {
        this.session = session;
        this.createMissing = createMissing;
    }

    void ensure(QualifiedName target, RelationId source, List<SchemaVersion> schemas, String eventKey)
            throws SQLException {
        if (session.verifiedTables.contains(target)) {
            return;
        }
        session.at(target.quoted(), eventKey);
        if (!exists(target)) {
            if (!createMissing) {
                throw new ApplyException(ApplyException.Reason.MISSING_TARGET_TABLE, target.quoted(), eventKey,
                        "target table " + target.quoted() + " does not exist; create it, map the source relation"
                                + " to an existing table, or enable creation of missing tables");
            }
            create(target, schemaOf(source, schemas, target, eventKey), eventKey);
        }
        session.verifiedTables.add(target);
    }

    private boolean exists(QualifiedName target) throws SQLException {
        try (PreparedStatement ps = session.connection.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            ps.setString(1, target.quoted());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private static SchemaVersion schemaOf(RelationId source, List<SchemaVersion> schemas, QualifiedName target,
                                          String eventKey) {
        for (SchemaVersion v : schemas) {
            if (v.getRelation().getSchema().equals(source.getSchema())
                    && v.getRelation().getTable().equals(source.getTable()) && v.getColumnsCount() > 0) {
                return v;
            }
        }
        throw new ApplyException(ApplyException.Reason.MISSING_TARGET_TABLE, target.quoted(), eventKey,
                "target table is missing and the envelope (or chunk) carries no column definitions to create it from");
    }

    private void create(QualifiedName target, SchemaVersion schema, String eventKey) throws SQLException {
        StringBuilder sql = new StringBuilder("CREATE TABLE IF NOT EXISTS ").append(target.quoted()).append(" (");
        List<String> keys = new ArrayList<>();
        try (PreparedStatement ps = session.connection.prepareStatement(
                "SELECT format_type(to_regtype(?), ?)")) {
            for (int i = 0; i < schema.getColumnsCount(); i++) {
                ColumnDefinition col = schema.getColumns(i);
                ps.setString(1, col.getTypeName());
                ps.setInt(2, col.getTypeModifier());
                String type;
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    type = rs.getString(1);
                }
                if (type == null) {
                    throw new ApplyException(ApplyException.Reason.MISSING_TARGET_TABLE, target.quoted(), eventKey,
                            "cannot create the target table: type '" + col.getTypeName() + "' of column \""
                                    + col.getName() + "\" does not exist on the target");
                }
                sql.append(i == 0 ? "" : ", ").append(Identifiers.quote(col.getName())).append(' ').append(type);
                if (col.getKey()) {
                    keys.add(Identifiers.quote(col.getName()));
                }
            }
        }
        if (!keys.isEmpty()) {
            sql.append(", PRIMARY KEY (").append(String.join(", ", keys)).append(')');
        }
        sql.append(')');
        try (Statement s = session.connection.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS " + Identifiers.quote(target.schema()));
            s.execute(sql.toString());
        }
    }
}
