package io.trellara.connect.common.liveness;

/**
 * A stage that waited past its bound without progress.
 *
 * @param stage the stage (e.g. "target statement", "producer")
 * @param waitingFor what it waited for (the statement kind, table and flow; the records not
 *     acknowledged)
 * @param waitedMillis how long it had gone without progress
 * @param boundMillis its bound
 */
public record Stall(String stage, String waitingFor, long waitedMillis, long boundMillis) {
  /** The words of a {@code STALLED} failure. */
  public String describe() {
    return "stage '"
        + stage
        + "' made no progress for "
        + waitedMillis
        + " ms (bound "
        + boundMillis
        + " ms) while waiting for "
        + waitingFor;
  }
}
