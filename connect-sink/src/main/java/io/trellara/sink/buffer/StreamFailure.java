package io.trellara.sink.buffer;

/** How a streamed transaction's work failed, as the driver tells the buffer. */
public enum StreamFailure {
  /** The target connection failed: deliver the transaction again from its first chunk. */
  TRANSIENT,
  /** The chunks do not continue the total order as published: apply it the staged way. */
  CANNOT_STREAM,
  /** A protocol violation or a refused change: it stops the partition at the first chunk. */
  REFUSED
}
