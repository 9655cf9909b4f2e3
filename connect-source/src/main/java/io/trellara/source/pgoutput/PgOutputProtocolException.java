package io.trellara.source.pgoutput;

/**
 * A pgoutput message violates the logical replication protocol as this parser understands it: an
 * unknown message type, a message that does not belong to the negotiated protocol version, a
 * message that is shorter (or longer) than its layout, or a field with a value the protocol does
 * not define.
 *
 * <p>Always names the rule, the message type byte, the field and the byte position (relative to the
 * start of the message) where parsing stopped. The capture engine treats it as fatal: the task
 * stops.
 */
public final class PgOutputProtocolException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final byte messageType;
  private final int position;
  private final String field;

  public PgOutputProtocolException(
      String rule, byte messageType, String field, int position, int messageLength) {
    super(describe(rule, messageType, field, position, messageLength));
    this.messageType = messageType;
    this.position = position;
    this.field = field;
  }

  /** The message type byte (the first byte of the message), or 0 for an empty message. */
  public byte messageType() {
    return messageType;
  }

  /** Byte offset, relative to the start of the message, where the violation was detected. */
  public int position() {
    return position;
  }

  /** The name of the field being read, e.g. {@code "relation.columns[2].name"}. */
  public String field() {
    return field;
  }

  private static String describe(String rule, byte type, String field, int position, int length) {
    StringBuilder sb = new StringBuilder(96);
    sb.append("pgoutput protocol violation: ")
        .append(rule)
        .append(" (message type ")
        .append(typeName(type))
        .append(", field ")
        .append(field)
        .append(", at byte ")
        .append(position)
        .append(" of ")
        .append(length)
        .append(')');
    return sb.toString();
  }

  static String typeName(byte type) {
    String hex =
        "0x" + Character.forDigit((type >> 4) & 0xF, 16) + Character.forDigit(type & 0xF, 16);
    if (type >= 0x21 && type <= 0x7E) {
      return "'" + (char) type + "' (" + hex + ")";
    }
    return hex;
  }
}
