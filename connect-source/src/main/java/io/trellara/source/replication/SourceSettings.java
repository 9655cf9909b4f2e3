package io.trellara.source.replication;

import io.trellara.source.capture.ddl.CapturedTables;
import io.trellara.source.pg.Heartbeat;
import io.trellara.source.pg.PgEndpoint;
import io.trellara.source.pg.PublishedTables;
import io.trellara.source.pg.SourceDatabase;
import io.trellara.source.pg.WalGuard;
import io.trellara.source.snapshot.SnapshotReads;
import java.nio.file.Path;
import java.util.List;

/**
 * What the capture engine needs, free of any Connect type. {@code capturedTables} is what the
 * publication covered when the task started ({@link PublishedTables}), for DDL filtering. {@code
 * reconnectMaxDurationMs}: how long the engine keeps reconnecting after it lost the replication
 * connection (0: it fails at once). {@code heartbeatIntervalMs}: how often a {@link Heartbeat}
 * message is written on the source database (0: never). {@code snapshotReads}: how an initial
 * snapshot reads its tables. {@code stallTimeoutMs}: how long a stage that waits (the replication
 * stream, the snapshot's reads, the producer) may go without progress before the task fails with
 * {@code STALLED}. {@code walGuard}: the slot lag warning and the heartbeat's action query.
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
    SnapshotReads snapshotReads,
    long stallTimeoutMs,
    WalGuard walGuard) {

  /** The default bound of a stage that waits ({@code capture.stall.timeout.ms}). */
  public static final long DEFAULT_STALL_TIMEOUT_MS = 300_000;

  /** Settings with the default slot lag warning and no heartbeat action query. */
  public SourceSettings(
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
      SnapshotReads snapshotReads,
      long stallTimeoutMs) {
    this(
        endpoint,
        sourceId,
        databaseId,
        datasetId,
        slotName,
        publicationName,
        autocreatePublication,
        tables,
        protocolVersion,
        streaming,
        statusIntervalMs,
        reconnectMaxDurationMs,
        heartbeatIntervalMs,
        ddlCapture,
        ddlInstall,
        spillDirectory,
        spillThresholdBytes,
        maxEnvelopeBytes,
        queueMaxRecords,
        queueMaxBytes,
        boundary,
        capturedTables,
        snapshotReads,
        stallTimeoutMs,
        WalGuard.DEFAULT);
  }

  /** Settings with the default stall bound. */
  public SourceSettings(
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
      SnapshotReads snapshotReads) {
    this(
        endpoint,
        sourceId,
        databaseId,
        datasetId,
        slotName,
        publicationName,
        autocreatePublication,
        tables,
        protocolVersion,
        streaming,
        statusIntervalMs,
        reconnectMaxDurationMs,
        heartbeatIntervalMs,
        ddlCapture,
        ddlInstall,
        spillDirectory,
        spillThresholdBytes,
        maxEnvelopeBytes,
        queueMaxRecords,
        queueMaxBytes,
        boundary,
        capturedTables,
        snapshotReads,
        DEFAULT_STALL_TIMEOUT_MS);
  }

  /** Settings with the default snapshot reads. */
  public SourceSettings(
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
      CapturedTables capturedTables) {
    this(
        endpoint,
        sourceId,
        databaseId,
        datasetId,
        slotName,
        publicationName,
        autocreatePublication,
        tables,
        protocolVersion,
        streaming,
        statusIntervalMs,
        reconnectMaxDurationMs,
        heartbeatIntervalMs,
        ddlCapture,
        ddlInstall,
        spillDirectory,
        spillThresholdBytes,
        maxEnvelopeBytes,
        queueMaxRecords,
        queueMaxBytes,
        boundary,
        capturedTables,
        SnapshotReads.DEFAULT);
  }

  public SourceSettings withCapturedTables(CapturedTables captured) {
    return new SourceSettings(
        endpoint,
        sourceId,
        databaseId,
        datasetId,
        slotName,
        publicationName,
        autocreatePublication,
        tables,
        protocolVersion,
        streaming,
        statusIntervalMs,
        reconnectMaxDurationMs,
        heartbeatIntervalMs,
        ddlCapture,
        ddlInstall,
        spillDirectory,
        spillThresholdBytes,
        maxEnvelopeBytes,
        queueMaxRecords,
        queueMaxBytes,
        boundary,
        captured,
        snapshotReads,
        stallTimeoutMs,
        walGuard);
  }

  public SourceSettings withBoundary(BoundarySettings b) {
    return new SourceSettings(
        endpoint,
        sourceId,
        databaseId,
        datasetId,
        slotName,
        publicationName,
        autocreatePublication,
        tables,
        protocolVersion,
        streaming,
        statusIntervalMs,
        reconnectMaxDurationMs,
        heartbeatIntervalMs,
        ddlCapture,
        ddlInstall,
        spillDirectory,
        spillThresholdBytes,
        maxEnvelopeBytes,
        queueMaxRecords,
        queueMaxBytes,
        b,
        capturedTables,
        snapshotReads,
        stallTimeoutMs,
        walGuard);
  }

  /** What the PostgreSQL administration (setup, preflight, slots) needs of these settings. */
  public SourceDatabase database() {
    return new SourceDatabase(
        endpoint,
        slotName,
        publicationName,
        autocreatePublication,
        tables,
        ddlCapture,
        ddlInstall,
        boundary.partitioned() ? boundary.ownershipKeys() : null,
        capturedTables.ddlRoles());
  }
}
