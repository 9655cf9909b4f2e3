package io.trellara.sink.port;

/**
 * Wakes a task whose barriers wait for chunks other tasks stage: the staging itself signals (on
 * PostgreSQL a {@code NOTIFY} committed with the chunks), so a waiting barrier is looked at again
 * when something may have changed, not at a poll interval. A second port beside {@link Target},
 * since only the driver's idle wait needs it.
 */
public interface StagingSignal extends AutoCloseable {
  /** No signal: the driver falls back to looking again at its recheck interval. */
  StagingSignal NONE =
      new StagingSignal() {
        @Override
        public boolean listening() {
          return false;
        }

        @Override
        public boolean await(long millis) {
          return false;
        }

        @Override
        public void close() {}
      };

  /**
   * True while signals reach this task: a waiting barrier needs no fast recheck then. Starts
   * listening on first use; false when it cannot (the fallback is the recheck interval).
   */
  boolean listening();

  /**
   * Waits at most {@code millis} (0: does not wait) for a signal that another task of this sink
   * staged chunks since the last call; true when one came. Signals that came meanwhile are taken at
   * once.
   */
  boolean await(long millis);

  @Override
  void close();
}
