package io.trellara.identity;

/**
 * Any failure to encode, decode or validate a row identity: unsupported type, malformed input text,
 * exceeded limit. Never recovered by falling back to another encoding.
 */
public class RowIdentityException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public RowIdentityException(String message) {
    super(message);
  }

  public RowIdentityException(String message, Throwable cause) {
    super(message, cause);
  }

  /** Prefix the message with the field position and type so an operator can find the value. */
  public RowIdentityException inField(int fieldIndex, String typeName) {
    return new RowIdentityException(
        "field " + fieldIndex + " (" + typeName + "): " + getMessage(), this);
  }
}
