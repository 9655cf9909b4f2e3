package io.trellara.source.engine;

import java.nio.file.Path;
import java.util.List;

/** What the capture engine needs, free of any Connect type. */
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
        boolean ddlCapture,
        boolean ddlInstall,
        Path spillDirectory,
        long spillThresholdBytes,
        int maxEnvelopeBytes,
        int queueMaxRecords,
        long queueMaxBytes,
        BoundarySettings boundary) {
}
