package io.trellara.source.replication;

/**
 * The capture thread stopped on an error; the task fails with it (nothing after it is published).
 */
public class CaptureFailedException extends RuntimeException {
  public CaptureFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
