package io.trellara.source.replication;

import io.trellara.connect.common.Ticker;
import io.trellara.connect.common.liveness.Stage;
import io.trellara.connect.common.liveness.Stall;
import io.trellara.connect.common.liveness.StalledException;
import io.trellara.connect.common.liveness.Watchdog;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The capture thread's stages on the task's {@link Watchdog}: the replication stream ({@link
 * StreamLiveness}) and the snapshot's reads. The first stage past its bound is remembered and its
 * work woken (the stream's connection, or the snapshot's connections, closed under it), so the
 * capture thread fails with STALLED instead of reconnecting.
 */
final class EngineStages implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EngineStages.class);

  private final Watchdog watchdog;
  private final boolean owned;
  private final StreamLiveness stream;
  private final Stage snapshot;
  private final AtomicReference<Stall> stalled = new AtomicReference<>();

  /**
   * @param given the task's watchdog (tests: a manual one); null: one of its own with {@code
   *     stallTimeoutMs}, closed with these stages
   * @param abortStream closes the replication connection under its read
   * @param abortSnapshot closes the snapshot's connections under their reads
   */
  EngineStages(
      Watchdog given,
      Ticker ticker,
      SourceSettings settings,
      Runnable abortStream,
      Runnable abortSnapshot) {
    this.owned = given == null;
    this.watchdog =
        given != null
            ? given
            : Watchdog.start(
                "source-" + settings.slotName(), Duration.ofMillis(settings.stallTimeoutMs()));
    this.stream =
        new StreamLiveness(
            watchdog,
            ticker,
            settings.slotName(),
            stall -> {
              if (stalled.compareAndSet(null, stall)) {
                LOG.error(
                    "STALLED: {}; slot {}, last LSN received {}: closing the replication"
                        + " connection, the task fails",
                    stall.describe(),
                    settings.slotName(),
                    lastLsn());
                abortStream.run();
              }
            });
    this.snapshot =
        watchdog.stage(
            CaptureEngine.SNAPSHOT_STAGE,
            stall -> {
              if (stalled.compareAndSet(null, stall)) {
                LOG.error(
                    "STALLED: {}; snapshot of publication {}: closing its connections, the task"
                        + " fails",
                    stall.describe(),
                    settings.publicationName());
                abortSnapshot.run();
              }
            });
  }

  Watchdog watchdog() {
    return watchdog;
  }

  StreamLiveness stream() {
    return stream;
  }

  Stage snapshot() {
    return snapshot;
  }

  String lastLsn() {
    return stream.lastLsn();
  }

  /** A stage has stalled. */
  boolean stalled() {
    return stalled.get() != null;
  }

  /** The STALLED failure for {@code cause}, with {@code detail}; null when no stage stalled. */
  StalledException failure(String detail, Throwable cause) {
    Stall s = stalled.get();
    return s == null ? null : new StalledException(s, detail, cause);
  }

  @Override
  public void close() {
    if (owned) {
      watchdog.close();
    } else {
      watchdog.remove(stream.stage());
      watchdog.remove(snapshot);
    }
  }
}
