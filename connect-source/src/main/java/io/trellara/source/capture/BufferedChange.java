package io.trellara.source.capture;

import io.trellara.source.pgoutput.PgOutputMessage.Streamable;
import java.nio.ByteBuffer;

/**
 * One change message of an in-flight transaction, held in memory: the parsed message, its WAL
 * position and the schema version(s) in force when it arrived ({@code relations} has one entry for
 * Insert, Update and Delete, one per relation for Truncate, none for a DDL message).
 *
 * <p>{@code wire} is the message's wire bytes when the message itself does not keep them: a
 * Truncate or a DDL message received with its bytes (Insert, Update and Delete keep theirs in their
 * tuples); null otherwise.
 */
record BufferedChange(
    Streamable message,
    long walStart,
    RelationSchema[] relations,
    int estimatedBytes,
    byte[] wire) {

  /**
   * The bytes to spill this change as, or null when they must be encoded from the parsed message.
   */
  ByteBuffer wireBytes() {
    return wire != null ? ByteBuffer.wrap(wire) : ChangeBuffer.keptWire(message);
  }

  /** The (sub)transaction xid the change carries, 0 outside a stream block. */
  long subXid() {
    return message.streamXid();
  }
}
