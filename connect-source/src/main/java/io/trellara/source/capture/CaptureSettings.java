package io.trellara.source.capture;

import io.trellara.source.capture.ddl.CapturedTables;
import io.trellara.source.capture.ddl.DdlFilter;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Settings of the capture core.
 *
 * @param spillDirectory where in-flight transactions spill (one local-log file per spilled
 *     transaction)
 * @param spillThresholdBytes the memory budget for buffered changes, summed over ALL in-flight
 *     transactions; when a new change would push the sum above it, the in-flight transaction
 *     holding the most memory is moved to its spill file (and keeps spilling until it is emitted or
 *     aborted)
 * @param ddlMessagePrefix the prefix of the transactional logical messages the DDL event trigger
 *     emits
 * @param ddlCapture false: every DDL message is dropped, whatever trigger the database has
 * @param capturedTables the publication's tables as known at start (see {@link DdlFilter})
 */
public record CaptureSettings(
    Path spillDirectory,
    long spillThresholdBytes,
    String ddlMessagePrefix,
    boolean ddlCapture,
    CapturedTables capturedTables) {

  public static final long DEFAULT_SPILL_THRESHOLD_BYTES = 16L * 1024 * 1024;
  public static final String DEFAULT_DDL_MESSAGE_PREFIX = "trellara.ddl";

  public CaptureSettings {
    Objects.requireNonNull(spillDirectory, "spillDirectory");
    Objects.requireNonNull(ddlMessagePrefix, "ddlMessagePrefix");
    Objects.requireNonNull(capturedTables, "capturedTables");
    if (spillThresholdBytes < 0) {
      throw new IllegalArgumentException(
          "spillThresholdBytes must be >= 0, was " + spillThresholdBytes);
    }
  }

  /**
   * DDL capture on, nothing captured known up front (only relations described by Relation
   * messages), DDL messages' roles not checked: for recorded and synthetic streams, whose messages
   * predate the role field. The connector never uses it; its start resolves the roles.
   */
  public CaptureSettings(Path spillDirectory, long spillThresholdBytes, String ddlMessagePrefix) {
    this(
        spillDirectory,
        spillThresholdBytes,
        ddlMessagePrefix,
        true,
        new CapturedTables(false, Set.of(), List.of()));
  }

  /** Default budget (16 MiB) and DDL prefix. */
  public static CaptureSettings defaults(Path spillDirectory) {
    return new CaptureSettings(
        spillDirectory, DEFAULT_SPILL_THRESHOLD_BYTES, DEFAULT_DDL_MESSAGE_PREFIX);
  }

  public CaptureSettings withSpillThresholdBytes(long bytes) {
    return new CaptureSettings(spillDirectory, bytes, ddlMessagePrefix, ddlCapture, capturedTables);
  }

  public CaptureSettings withDdlCapture(boolean enabled) {
    return new CaptureSettings(
        spillDirectory, spillThresholdBytes, ddlMessagePrefix, enabled, capturedTables);
  }

  public CaptureSettings withCapturedTables(CapturedTables tables) {
    return new CaptureSettings(
        spillDirectory, spillThresholdBytes, ddlMessagePrefix, ddlCapture, tables);
  }
}
