package io.trellara.source.capture;

import io.trellara.source.pgoutput.PgOutputMessage.Streamable;

/**
 * One change message of an in-flight transaction, held in memory: the parsed message, its WAL position and
 * the schema version(s) in force when it arrived ({@code relations} has one entry for Insert, Update and
 * Delete, one per relation for Truncate, none for a DDL message).
 */
record BufferedChange(Streamable message, long walStart, RelationSchema[] relations, int estimatedBytes) {

  /** The (sub)transaction xid the change carries, 0 outside a stream block. */
  long subXid() {
    return message.streamXid();
  }
}
