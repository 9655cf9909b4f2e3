package io.trellara.sink.postgres;

/** Handling of an update or delete that matches no row on the target. */
public enum MissingRowPolicy {
  /** Fail closed (default): the target diverged from the source. */
  FAIL,
  /** Skip the change and count it in {@link ApplyMetrics#missingRowsIgnored()}. */
  IGNORE
}
