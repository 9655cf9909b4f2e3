package io.trellara.source.startup;

/** The source task cannot start; the message says why and what to do. */
public final class SourceStartException extends RuntimeException {
  public SourceStartException(String message, Throwable cause) {
    super(message, cause);
  }
}
