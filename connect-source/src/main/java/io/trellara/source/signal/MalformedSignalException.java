package io.trellara.source.signal;

/** A signal that cannot be understood: logged (escaped) and ignored, never fatal. */
public final class MalformedSignalException extends Exception {
  public MalformedSignalException(String message) {
    super(message);
  }
}
