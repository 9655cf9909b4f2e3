package io.trellara.source.capture;

/**
 * A captured change cannot be turned into a correct event: the capture fails closed. The message
 * names the rule, the relation, the column and the LSN where they are known, and says what to do.
 */
public class CaptureException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String rule;

  public CaptureException(String rule, String message) {
    super(rule + ": " + message);
    this.rule = rule;
  }

  public CaptureException(String rule, String message, Throwable cause) {
    super(rule + ": " + message, cause);
    this.rule = rule;
  }

  /** A short stable name of the violated rule, e.g. {@code missing_key_column}. */
  public String rule() {
    return rule;
  }
}
