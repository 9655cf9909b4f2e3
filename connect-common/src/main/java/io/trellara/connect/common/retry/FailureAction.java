package io.trellara.connect.common.retry;

/**
 * What a task does about a failure: the one vocabulary of the source's and the sink's error tables.
 */
public enum FailureAction {
  /**
   * Roll back and run the same work again, after a {@link Backoff} delay (a serialization failure).
   */
  RETRY,
  /**
   * The connection is gone or unusable: open a fresh one, then run the work again after a delay.
   */
  RECONNECT,
  /** Another task owns the work now: drop what is held and wait for the rebalance. */
  FENCE,
  /** Stop the task with the named reason: retrying cannot help. */
  FAIL;

  /** True when the work is tried again (after a rollback and a delay). */
  public boolean retries() {
    return this == RETRY || this == RECONNECT;
  }
}
