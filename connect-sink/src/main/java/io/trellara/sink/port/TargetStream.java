package io.trellara.sink.port;

import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionManifest;
import java.util.Map;

/**
 * One strict-chunked transaction being applied as its chunks arrive (see {@link
 * Target#openStream}): nothing is visible until {@link #commit}. The engine decides what continues
 * the transaction; the stream writes what it is given, in order. {@link #write} and {@link #commit}
 * throw {@link TransientFailure} (rolled back; deliver the transaction again), {@link CannotStream}
 * (rolled back; apply it the staged way), or the {@link ApplyException} / {@code
 * ProtocolViolationException} that stops apply.
 */
public interface TargetStream {
  /** The target connection failed mid-transaction: rolled back; deliver the transaction again. */
  final class TransientFailure extends RuntimeException {
    public TransientFailure(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * The chunks do not continue the total order as published: rolled back; apply it the staged way.
   */
  final class CannotStream extends RuntimeException {
    public CannotStream(String message) {
      super(message);
    }
  }

  void write(PartitionChunk c);

  void manifest(TransactionManifest m);

  /** Verifies the marker and the manifest against every chunk, then records and commits. */
  BarrierResult commit(TransactionCommitMarker k, Map<TopicPartitionKey, Long> positions);

  /** Rolls back whatever was written. Idempotent. */
  void rollback();
}
