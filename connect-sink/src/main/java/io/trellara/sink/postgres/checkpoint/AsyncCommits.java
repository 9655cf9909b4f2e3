package io.trellara.sink.postgres.checkpoint;

import io.trellara.sink.port.TargetProgressLost;

/**
 * What a lost target connection means when commits are asynchronous ({@code
 * synchronous_commit=off}): a commit returns before its WAL is flushed, so a crash of the target
 * may lose the last ones, and the progress and dedup rows in them. Once the connection is lost
 * while such commits are not known to be flushed, the next use of the target (once it can be
 * reached) throws {@link TargetProgressLost} instead of applying anything after them. Synchronous
 * commits are flushed when COMMIT returns, so they never ask for this.
 */
public final class AsyncCommits {
  private boolean unflushed;
  private boolean progressMayBeLost;

  /** A target transaction committed (asynchronously or not). */
  public void committed(boolean asynchronous) {
    unflushed |= asynchronous;
  }

  /** Every commit so far is known to be flushed. */
  public void flushed() {
    unflushed = false;
  }

  /** A session's connection was lost (or discarded as broken). */
  public void connectionLost() {
    progressMayBeLost |= unflushed;
  }

  /** Throws {@link TargetProgressLost} once after a connection was lost with unflushed commits. */
  public void checkProgress() {
    if (progressMayBeLost) {
      progressMayBeLost = false;
      unflushed = false;
      throw new TargetProgressLost(
          "The connection to the target was lost while transactions committed with"
              + " synchronous_commit=off were not known to be flushed: a crash of the target may have lost"
              + " them with their progress; every partition is read again from the progress the target records");
    }
  }
}
