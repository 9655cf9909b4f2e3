package io.trellara.source.engine;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Measures how far the replication slot trails the server's WAL: {@code pg_current_wal_lsn() -
 * confirmed_flush_lsn} of the slot, on an ordinary (non-replication) connection kept open between samples.
 * Meant to be called every few seconds from one scheduler thread, never per record. A failed sample closes
 * the connection (the next sample reconnects) and leaves the previous values in place; it never affects
 * capture.
 */
public final class SlotLagSampler implements AutoCloseable {
    static final String QUERY = """
            SELECT pg_current_wal_lsn()::text, confirmed_flush_lsn::text,
                   pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint
              FROM pg_replication_slots WHERE slot_name = ?""";

    /** One successful sample; {@code lagBytes} is -1 when the slot does not exist (yet). */
    public record Sample(long lagBytes, String currentWalLsn, String confirmedFlushLsn, long sampledAtMs) {
    }

    private final PgEndpoint endpoint;
    private final String slotName;
    private Connection connection;
    private volatile Sample last;
    private volatile String lastError;

    public SlotLagSampler(PgEndpoint endpoint, String slotName) {
        this.endpoint = endpoint;
        this.slotName = slotName;
    }

    /** Takes one sample; returns it, or null when the query failed (see {@link #lastError()}). */
    public synchronized Sample sample() {
        try {
            if (connection == null || connection.isClosed()) {
                connection = endpoint.connect();
            }
            try (PreparedStatement ps = connection.prepareStatement(QUERY)) {
                ps.setQueryTimeout(10);
                ps.setString(1, slotName);
                try (ResultSet rs = ps.executeQuery()) {
                    Sample s = rs.next()
                            ? new Sample(rs.getLong(3), rs.getString(1), rs.getString(2), System.currentTimeMillis())
                            : new Sample(-1, null, null, System.currentTimeMillis());
                    last = s;
                    lastError = null;
                    return s;
                }
            }
        } catch (SQLException | RuntimeException e) {
            lastError = e.getMessage();
            closeQuietly();
            return null;
        }
    }

    /** The last successful sample, or null before the first. */
    public Sample last() {
        return last;
    }

    /** Why the last sample failed, or null when it succeeded. */
    public String lastError() {
        return lastError;
    }

    private void closeQuietly() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // the connection is being discarded; nothing to tell anyone
            }
            connection = null;
        }
    }

    @Override
    public synchronized void close() {
        closeQuietly();
    }
}
