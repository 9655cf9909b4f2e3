package io.trellara.source.engine;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.StringJoiner;

/**
 * Creates what capture needs when it is absent: the publication, the slot, the DDL event triggers (installed
 * again when only the older single trigger exists, which upgrades it).
 */
public final class SourceSetup {
    static final String DDL_SCRIPT = "/trellara-ddl-capture.sql";

    private SourceSetup() {
    }

    public static void ensure(SourceSettings s) throws SQLException {
        try (Connection c = s.endpoint().connect()) {
            c.setAutoCommit(true);
            if (s.autocreatePublication() && !exists(c, "SELECT 1 FROM pg_publication WHERE pubname = ?",
                    s.publicationName())) {
                StringJoiner tables = new StringJoiner(", ");
                for (String t : s.tables()) {
                    String[] parts = SourcePreflight.splitQualified(t);
                    tables.add(PgNames.quoteIdentifier(parts[0]) + "." + PgNames.quoteIdentifier(parts[1]));
                }
                execute(c, "CREATE PUBLICATION " + PgNames.quoteIdentifier(s.publicationName()) + " FOR TABLE " + tables);
            }
            if (!exists(c, "SELECT 1 FROM pg_replication_slots WHERE slot_name = ?", s.slotName())) {
                try (PreparedStatement ps = c.prepareStatement(
                        "SELECT pg_create_logical_replication_slot(?, 'pgoutput')")) {
                    ps.setString(1, s.slotName());
                    ps.execute();
                }
            }
            // the sql_drop trigger came with the relations field: without it the installed version is older
            if (s.ddlCapture() && s.ddlInstall()
                    && (!exists(c, "SELECT 1 FROM pg_event_trigger WHERE evtname = ?", "trellara_ddl_capture")
                    || !exists(c, "SELECT 1 FROM pg_event_trigger WHERE evtname = ?", "trellara_ddl_capture_drop"))) {
                execute(c, ddlScript());
            }
        }
    }

    static String ddlScript() {
        try (InputStream in = SourceSetup.class.getResourceAsStream(DDL_SCRIPT)) {
            if (in == null) {
                throw new IllegalStateException(DDL_SCRIPT + " is missing from the plugin");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + DDL_SCRIPT, e);
        }
    }

    private static boolean exists(Connection c, String sql, String arg) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, arg);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}
