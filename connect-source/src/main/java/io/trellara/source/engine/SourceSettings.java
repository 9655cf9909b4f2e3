package io.trellara.source.engine;

import io.trellara.source.capture.CapturedTables;
import java.nio.file.Path;
import java.util.List;

/**
 * What the capture engine needs, free of any Connect type. {@code capturedTables} is what the publication
 * covered when the task started ({@link PublishedTables}), for DDL filtering. {@code reconnectMaxDurationMs}: how
 * long the engine keeps reconnecting after it lost the replication connection (0: it fails at once).
 * {@code heartbeatIntervalMs}: how often a {@link Heartbeat} message is written on the source database (0: never).
 * {@code snapshotMaxThreads}: connections reading tables at once during an initial snapshot.
 */
public record SourceSettings(
        PgEndpoint endpoint,
        String sourceId,
        String databaseId,
        String datasetId,
        String slotName,
        String publicationName,
        boolean autocreatePublication,
        List<String> tables,
        int protocolVersion,
        boolean streaming,
        long statusIntervalMs,
        long reconnectMaxDurationMs,
        long heartbeatIntervalMs,
        boolean ddlCapture,
        boolean ddlInstall,
        Path spillDirectory,
        long spillThresholdBytes,
        int maxEnvelopeBytes,
        int queueMaxRecords,
        long queueMaxBytes,
        BoundarySettings boundary,
        CapturedTables capturedTables,
        int snapshotMaxThreads) {

    /** Settings with one snapshot connection. */
    public SourceSettings(PgEndpoint endpoint, String sourceId, String databaseId, String datasetId, String slotName,
                          String publicationName, boolean autocreatePublication, List<String> tables,
                          int protocolVersion, boolean streaming, long statusIntervalMs, long reconnectMaxDurationMs,
                          long heartbeatIntervalMs, boolean ddlCapture, boolean ddlInstall, Path spillDirectory,
                          long spillThresholdBytes, int maxEnvelopeBytes, int queueMaxRecords, long queueMaxBytes,
                          BoundarySettings boundary, CapturedTables capturedTables) {
        this(endpoint, sourceId, databaseId, datasetId, slotName, publicationName, autocreatePublication, tables,
                protocolVersion, streaming, statusIntervalMs, reconnectMaxDurationMs, heartbeatIntervalMs, ddlCapture,
                ddlInstall, spillDirectory, spillThresholdBytes, maxEnvelopeBytes, queueMaxRecords, queueMaxBytes,
                boundary, capturedTables, 1);
    }

    public SourceSettings withCapturedTables(CapturedTables captured) {
        return new SourceSettings(endpoint, sourceId, databaseId, datasetId, slotName, publicationName,
                autocreatePublication, tables, protocolVersion, streaming, statusIntervalMs, reconnectMaxDurationMs,
                heartbeatIntervalMs, ddlCapture, ddlInstall, spillDirectory, spillThresholdBytes, maxEnvelopeBytes, queueMaxRecords,
                queueMaxBytes, boundary, captured, snapshotMaxThreads);
    }

    public SourceSettings withBoundary(BoundarySettings b) {
        return new SourceSettings(endpoint, sourceId, databaseId, datasetId, slotName, publicationName,
                autocreatePublication, tables, protocolVersion, streaming, statusIntervalMs, reconnectMaxDurationMs,
                heartbeatIntervalMs, ddlCapture, ddlInstall, spillDirectory, spillThresholdBytes, maxEnvelopeBytes, queueMaxRecords,
                queueMaxBytes, b, capturedTables, snapshotMaxThreads);
    }
}
