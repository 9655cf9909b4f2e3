package io.trellara.source.replication;

import io.trellara.source.pgoutput.PgOutputMessage;
import java.nio.ByteBuffer;

/**
 * Turns the decoded message stream into committed envelopes (assembly, spill, envelope building).
 */
public interface TransactionPipeline extends AutoCloseable {

  /**
   * One message, its raw bytes (spilled as they are when a transaction outgrows memory) and the WAL
   * position it was sent at. Emits zero or more committed envelopes.
   */
  void accept(PgOutputMessage message, ByteBuffer raw, long walStart);

  /**
   * A look at the stream found no message (capture thread): a moment to do work that waits for a
   * quiet stream, perhaps inside a transaction whose next message has not arrived yet.
   */
  default void quiet() {}

  /**
   * True when no transaction is in flight, so every WAL position received so far may be
   * acknowledged.
   */
  boolean idle();

  /**
   * Transactions begun or streamed and not yet committed or aborted (for metrics; capture thread
   * only).
   */
  default int inFlightTransactions() {
    return 0;
  }

  /** Bytes of buffered changes held in memory right now (for metrics; capture thread only). */
  default long memoryBytes() {
    return 0;
  }

  /**
   * Transactions moved to a spill file since the pipeline started (for metrics; capture thread
   * only).
   */
  default long spilledTransactions() {
    return 0;
  }

  /** Bytes written to spill files since the pipeline started (for metrics; capture thread only). */
  default long spilledBytes() {
    return 0;
  }

  /**
   * DDL messages not published (uncaptured, temporary, DDL capture off) since start (capture thread
   * only).
   */
  default long ddlEventsDropped() {
    return 0;
  }

  /**
   * DDL messages refused (malformed, or from a role outside ddl.message.roles) since start (capture
   * thread only).
   */
  default long ddlMessagesRefused() {
    return 0;
  }

  @Override
  void close();
}
