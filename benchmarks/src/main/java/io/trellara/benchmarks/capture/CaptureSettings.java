package io.trellara.benchmarks.capture;

import io.trellara.source.capture.ddl.CapturedTables;
import io.trellara.source.replication.BoundarySettings;
import io.trellara.source.replication.SourceSettings;
import io.trellara.source.routing.KeyChangePolicy;
import io.trellara.source.routing.NullKeyPolicy;
import io.trellara.source.routing.OwnershipKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;

/**
 * The capture benchmarks' source settings: one boundary mode, everything else fixed, a spill folder
 * of their own.
 */
final class CaptureSettings {
  private CaptureSettings() {}

  /**
   * {@code mode}: strict, strict_chunked ({@code chunkedMaxChanges} per chunk) or partitioned (6
   * lanes, 1,000 per chunk); a transaction spills once its buffered changes pass {@code
   * spillThresholdBytes}.
   */
  static SourceSettings of(String mode, int chunkedMaxChanges, long spillThresholdBytes)
      throws IOException {
    BoundarySettings boundary =
        switch (mode) {
          case "strict" -> BoundarySettings.strict();
          case "strict_chunked" ->
              new BoundarySettings(
                  false,
                  chunkedMaxChanges,
                  1_000_000,
                  0,
                  OwnershipKeys.none(),
                  NullKeyPolicy.ROUTE_TO_SINGLETON_PARTITION,
                  KeyChangePolicy.EMIT_MOVE);
          default ->
              new BoundarySettings(
                  true,
                  1_000,
                  1_000_000,
                  6,
                  OwnershipKeys.none(),
                  NullKeyPolicy.ROUTE_TO_SINGLETON_PARTITION,
                  KeyChangePolicy.EMIT_MOVE);
        };
    return new SourceSettings(
        null,
        "bench",
        "db",
        "flow",
        "slot",
        "pub",
        false,
        List.of(),
        1,
        false,
        1000,
        600_000,
        0,
        true,
        false,
        Files.createTempDirectory("capture-bench"),
        spillThresholdBytes,
        256 << 20,
        1024,
        1L << 30,
        boundary,
        CapturedTables.NONE);
  }
}
