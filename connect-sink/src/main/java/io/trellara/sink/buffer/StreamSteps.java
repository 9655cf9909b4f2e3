package io.trellara.sink.buffer;

import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import java.util.Map;

/**
 * The streaming path for strict chunked order: all chunks of such a transaction arrive on the one
 * strict partition, so its owner applies them as they come, in one open target transaction, instead
 * of staging them. What decides, per record of a partition with a stream open:
 *
 * <ul>
 *   <li>the next chunk, the manifest, the commit marker: fed to the stream (the marker commits it);
 *   <li>a first chunk (index 0) or an envelope: the source stopped mid-transaction and publishes
 *       again from an earlier point; the stream is rolled back and the record taken as it is;
 *   <li>anything else (a gap, a repeat, a foreign chunk, a marker without the manifest): rolled
 *       back, and the transaction is delivered again and applied the staged way, whose barrier
 *       check names the rule;
 *   <li>a failure the driver reports ({@link SinkBuffer#streamFailed}): a transient one rolls back
 *       and delivers the transaction again from its first chunk (the driver waited its backoff);
 *       chunks out of total order go the staged way; a refusal is queued as poison at the first
 *       chunk.
 * </ul>
 */
final class StreamSteps {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(StreamSteps.class);

  /** What the buffer lends the stream steps. */
  interface Host {
    void poison(PartitionState ps, RuntimeException error, long offset);

    void rewind(PartitionState ps, long offset);

    /** A manifest whose marker never came was dropped (another transaction followed it). */
    void orphanDiscarded();
  }

  private final Host host;

  StreamSteps(Host host) {
    this.host = host;
  }

  /**
   * A first strict chunk on a partition with no manifest pending, not marked for the staged way.
   */
  boolean canOpen(PartitionState ps, Step step) {
    PartitionChunk c = step.chunk();
    if (c == null
        || step.poison() != null
        || c.getPartitionId() != 0
        || ps.pendingManifest != null
        || c.getBoundaryMode() != ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER) {
      return false;
    }
    if (ps.stageTransaction != null) {
      if (ps.stageTransaction.equals(key(c))) {
        return false;
      }
      ps.stageTransaction = null;
    }
    return true;
  }

  /** Opens the stream at {@code step}'s first chunk; the same step is then fed to it. */
  Decision open(PartitionState ps, Step step, long now) {
    ps.stream = new PartitionState.StreamCursor(key(step.chunk()), step.in().offset());
    ps.stream.lastProgressNanos = now;
    return new Decision.OpenStream(ps.tp, step.chunk());
  }

  /**
   * The decision that feeds {@code step} to the partition's stream; null when it does not continue
   * it.
   */
  Decision feed(PartitionState ps, Step step, long now) {
    PartitionState.StreamCursor s = ps.stream;
    s.lastProgressNanos = now;
    if (step.chunk() != null && step.poison() == null && s.continuesWith(step.chunk())) {
      s.nextIndex++;
      ps.seen(step.in().offset());
      return new Decision.StreamChunk(ps.tp, step.chunk());
    }
    if (step.message() instanceof TransactionManifest m && s.isManifest(m)) {
      s.manifest = m;
      ps.seen(step.in().offset());
      return new Decision.StreamManifest(ps.tp, m);
    }
    if (step.message() instanceof TransactionCommitMarker k && s.manifest != null) {
      ps.seen(step.in().offset());
      TransactionManifest m = s.manifest;
      ps.stream = null;
      return new Decision.CommitStream(ps.tp, k, m, Map.of(ps.tp, ps.next));
    }
    return null;
  }

  /**
   * The step does not continue the stream, which is rolled back (the returned decision). {@code
   * takenAsIs} says whether the step then starts a transaction again and is taken as it is; for
   * anything else (a gap, a repeat, a foreign chunk, a marker without the manifest) the transaction
   * is delivered again and goes the staged way, whose checks name the rule.
   */
  record Abandon(Decision rollback, boolean takenAsIs) {}

  Abandon abandon(PartitionState ps, Step step) {
    PartitionState.StreamCursor s = ps.stream;
    Decision rollback = new Decision.RollbackStream(ps.tp);
    if (step.poison() != null) { // a record that failed verification: it stops the partition here
      ps.stream = null;
      host.poison(ps, step.poison(), s.firstOffset);
      return new Abandon(rollback, false);
    }
    // a source publishes a transaction again from its start: a first chunk, or an envelope
    boolean restart =
        (step.chunk() != null && step.chunk().getPartitionId() == 0)
            || step.message() instanceof TransactionEnvelope;
    if (restart) {
      ps.stream = null;
      if (s.manifest != null) {
        host.orphanDiscarded();
      }
      LOG.warn(
          "Rolled back {} after {} chunk(s): {} follows them instead of its next chunk, manifest or"
              + " marker; a source that stopped mid-transaction publishes it again whole",
          s.key.display(),
          s.nextIndex,
          step.in().where());
      return new Abandon(rollback, true);
    }
    LOG.info(
        "Applying {} the staged way: {} does not continue its chunks as published",
        s.key.display(),
        step.in().where());
    stageInstead(ps, s);
    return new Abandon(rollback, false);
  }

  /**
   * The stream of {@code ps} (its first chunk at {@code s}) failed as the driver says: rolled back
   * by the target already or by the returned decision.
   */
  Decision failed(
      PartitionState ps,
      PartitionState.StreamCursor s,
      StreamFailure failure,
      RuntimeException error) {
    ps.stream = null;
    switch (failure) {
      case TRANSIENT -> host.rewind(ps, s.firstOffset);
      case CANNOT_STREAM -> {
        LOG.info("Applying {} the staged way: {}", s.key.display(), error.getMessage());
        ps.stageTransaction = s.key;
        host.rewind(ps, s.firstOffset);
      }
      case REFUSED -> host.poison(ps, error, s.firstOffset);
    }
    return new Decision.RollbackStream(ps.tp);
  }

  /**
   * A stream whose next chunk has not come for {@code boundNanos} holds a target transaction open
   * for nothing (a source that stopped mid-transaction, a lone first chunk): it is rolled back, so
   * its locks are released, and the transaction goes the staged way when it is delivered again.
   * Null when the partition's stream (if any) is within its bound.
   */
  Decision idleTooLong(PartitionState ps, long now, long boundNanos) {
    PartitionState.StreamCursor s = ps.stream;
    if (s == null || boundNanos <= 0 || now - s.lastProgressNanos < boundNanos) {
      return null;
    }
    LOG.warn(
        "Rolled back {} after {} chunk(s): its next chunk has not arrived for {} ms"
            + " (apply.stall.timeout.ms); its open target transaction is released and the transaction"
            + " is applied the staged way once it is delivered again",
        s.key.display(),
        s.nextIndex,
        (now - s.lastProgressNanos) / 1_000_000L);
    stageInstead(ps, s);
    return new Decision.RollbackStream(ps.tp);
  }

  private void stageInstead(PartitionState ps, PartitionState.StreamCursor s) {
    ps.stream = null;
    ps.stageTransaction = s.key;
    host.rewind(ps, s.firstOffset);
  }

  private static TransactionBoundaryKey key(PartitionChunk c) {
    return new TransactionBoundaryKey(
        c.getSourceId(), c.getDatabaseId(), c.getCommitLsn(), c.getTransactionId());
  }
}
