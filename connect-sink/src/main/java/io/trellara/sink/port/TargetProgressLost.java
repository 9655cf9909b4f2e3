package io.trellara.sink.port;

/**
 * The connection to the target was lost while commits made with {@code synchronous_commit=off} were
 * not yet known to be flushed: a crash of the target may have lost them, and their progress and
 * dedup rows with them. Thrown on the first use of the target once it is reachable again, before
 * anything else is applied; the task then drops what it holds in memory and reads every partition
 * again from the progress the target records (what was lost is delivered and applied again; what
 * survived is skipped by the dedup table).
 */
public final class TargetProgressLost extends RuntimeException {
  public TargetProgressLost(String message) {
    super(message);
  }
}
