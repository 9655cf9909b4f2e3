package io.trellara.source.replication;

import io.trellara.source.snapshot.ExportedSnapshot;
import io.trellara.source.snapshot.SnapshotEvents;
import io.trellara.source.snapshot.SnapshotProgress;
import io.trellara.source.snapshot.SnapshotReader;
import java.util.function.BooleanSupplier;

/**
 * The initial snapshot on the capture thread: reads the exported snapshot and publishes the
 * snapshot transaction through a pipeline of its own (the stream's pipeline starts afresh after
 * it), its chunks as they fill. Closes the exported snapshot.
 */
final class SnapshotRun {
  private final SourceSettings settings;
  private final Handover handover;
  private final SnapshotProgress progress;
  private final BooleanSupplier running;
  private volatile SnapshotReader reader;

  SnapshotRun(
      SourceSettings settings,
      Handover handover,
      SnapshotProgress progress,
      BooleanSupplier running) {
    this.settings = settings;
    this.handover = handover;
    this.progress = progress;
    this.running = running;
  }

  /** Reads and publishes {@code exported}; throws what stopped it. */
  void run(ExportedSnapshot exported) throws Exception {
    try (exported;
        BarrierPipeline pipeline =
            StrictPipeline.snapshotFactory(settings).apply(handover.numbered())) {
      long consistentPoint = exported.consistentPoint();
      BarrierPipeline.Publication snapshot =
          pipeline.snapshot(consistentPoint, System.currentTimeMillis());
      reader =
          new SnapshotReader(
              settings.endpoint(),
              settings.publicationName(),
              progress,
              running,
              settings.snapshotReads().maxThreads(),
              settings.snapshotReads().keyRangeRows(),
              settings.spillDirectory());
      reader.read(
          exported, new SnapshotEvents(settings.sourceId(), consistentPoint, snapshot.events()));
      snapshot.commit();
    }
  }

  /** Closes the read's connections under it (the watchdog's thread, on a stall). */
  void abort() {
    SnapshotReader r = reader;
    if (r != null) {
      r.abort();
    }
  }
}
