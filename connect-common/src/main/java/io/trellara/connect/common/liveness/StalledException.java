package io.trellara.connect.common.liveness;

/** {@code STALLED}: a stage waited past its bound; the work was cancelled and rolled back. */
public class StalledException extends RuntimeException {
  private final transient Stall stall;

  public StalledException(Stall stall, String detail, Throwable cause) {
    super(
        "STALLED: " + stall.describe() + (detail == null || detail.isEmpty() ? "" : "; " + detail),
        cause);
    this.stall = stall;
  }

  public Stall stall() {
    return stall;
  }
}
