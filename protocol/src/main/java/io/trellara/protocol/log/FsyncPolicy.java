package io.trellara.protocol.log;

/** When the writer forces frames to stable storage. */
public enum FsyncPolicy {
  /** fsync after every frame: nothing acknowledged is lost on power failure; slowest. */
  EVERY_FRAME,
  /**
   * fsync on {@link LocalLogWriter#flush()} and close: the caller decides the durability points.
   */
  ON_FLUSH,
  /**
   * Never fsync; the OS writes back when it likes. For spill files that die with the process
   * anyway.
   */
  NEVER
}
