package io.trellara.sink.engine;

import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.BarrierResult;
import io.trellara.sink.port.Target;
import io.trellara.sink.port.TargetStream;
import io.trellara.sink.postgres.ApplyOptions;
import java.util.Map;

/**
 * {@link ApplyPipeline}'s streaming path for strict chunked order: all chunks of such a transaction
 * arrive on the one strict partition, so the partition's owner applies them as they come ({@link
 * StreamedBarrier}) instead of staging them. What decides, per record of a partition with a stream
 * open:
 *
 * <ul>
 *   <li>the next chunk, the manifest, the commit marker: fed to the stream (the marker commits it);
 *   <li>a first chunk (index 0) or an envelope: the source stopped mid-transaction and publishes
 *       again from an earlier point; the stream is rolled back and the record taken as it is;
 *   <li>anything else (a gap, a repeat, a foreign chunk, a marker without the manifest, chunks out
 *       of total order): rolled back, and the transaction is delivered again and applied the staged
 *       way, whose barrier check names the rule;
 *   <li>a transient target failure: rolled back, delivered again from its first chunk after a
 *       backoff, for up to {@code retry.max.duration.ms};
 *   <li>a protocol violation or a refused change: rolled back and queued as poison at the first
 *       chunk.
 * </ul>
 */
final class BarrierStreams {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(BarrierStreams.class);

  /** What the pipeline lends the streams. */
  interface Host {
    void poison(PartitionQueues.PartitionState ps, RuntimeException error, long offset);

    void rewind(PartitionQueues.PartitionState ps, long offset);

    void applied(TransactionManifest manifest, BarrierResult result);

    /** A manifest whose marker never came was dropped (another transaction followed it). */
    void orphanDiscarded();
  }

  private final Target applier;
  private final Host host;

  BarrierStreams(Target applier, Host host) {
    this.applier = applier;
    this.host = host;
  }

  /**
   * A first strict chunk on a partition with no manifest pending, not marked for the staged way.
   */
  boolean canOpen(PartitionQueues.PartitionState ps, Step step) {
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

  void open(PartitionQueues.PartitionState ps, Step step) {
    ps.streamFirstOffset = step.in().offset();
    try {
      ps.stream = applier.openStream(step.chunk());
    } catch (TargetStream.TransientFailure e) {
      retryLater(ps, e);
      return;
    } catch (ApplyException | ProtocolViolationException e) {
      ps.streamFirstOffset = -1;
      host.poison(ps, e, step.in().offset());
      return;
    }
    feed(ps, step);
  }

  /** Feeds the step to the partition's stream; false when it does not continue the stream. */
  boolean feed(PartitionQueues.PartitionState ps, Step step) {
    TargetStream b = ps.stream;
    try {
      if (step.chunk() != null && step.poison() == null && b.continuesWith(step.chunk())) {
        b.write(step.chunk());
        ps.seen(step.in().offset());
      } else if (step.message() instanceof TransactionManifest m && b.isManifest(m)) {
        b.manifest(m);
        ps.seen(step.in().offset());
      } else if (step.message() instanceof TransactionCommitMarker k && b.manifestSeen()) {
        ps.seen(step.in().offset());
        BarrierResult result = b.commit(k, Map.of(ps.tp, ps.next));
        TransactionManifest m = b.manifest();
        end(ps);
        ps.streamFailingSince = 0;
        ps.streamBackoffMillis = 0;
        host.applied(m, result);
      } else {
        return false;
      }
    } catch (TargetStream.TransientFailure e) {
      retryLater(ps, e);
    } catch (TargetStream.CannotStream e) {
      LOG.info("Applying {} the staged way: {}", b.key().display(), e.getMessage());
      stageInstead(ps, b.key());
    } catch (ProtocolViolationException | ApplyException e) {
      b.rollback();
      long first = ps.streamFirstOffset;
      end(ps);
      host.poison(ps, e, first);
    }
    return true;
  }

  /**
   * The step does not continue the stream, which is rolled back. True when the step starts a
   * transaction again and is taken as it is; false for anything else (a gap, a repeat, a foreign
   * chunk, a marker without the manifest): the transaction is delivered again and goes the staged
   * way, whose checks name the rule.
   */
  boolean abandon(PartitionQueues.PartitionState ps, Step step) {
    TargetStream b = ps.stream;
    TransactionBoundaryKey key = b.key();
    if (step.poison() != null) { // a record that failed verification: it stops the partition here
      long first = ps.streamFirstOffset;
      b.rollback();
      end(ps);
      host.poison(ps, step.poison(), first);
      return false;
    }
    // a source publishes a transaction again from its start: a first chunk, or an envelope
    boolean restart =
        (step.chunk() != null && step.chunk().getPartitionId() == 0)
            || step.message() instanceof io.trellara.protocol.v1.TransactionEnvelope;
    if (restart) {
      b.rollback();
      end(ps);
      if (b.manifestSeen()) {
        host.orphanDiscarded();
      }
      LOG.warn(
          "Rolled back {} after {} chunk(s): {} follows them instead of its next chunk, manifest or marker;"
              + " a source that stopped mid-transaction publishes it again whole",
          key.display(),
          b.nextIndex(),
          step.in().where());
      return true;
    }
    LOG.info(
        "Applying {} the staged way: {} does not continue its chunks as published",
        key.display(),
        step.in().where());
    stageInstead(ps, key);
    return false;
  }

  private void stageInstead(PartitionQueues.PartitionState ps, TransactionBoundaryKey key) {
    long first = ps.streamFirstOffset;
    ps.stream.rollback();
    end(ps);
    ps.stageTransaction = key;
    host.rewind(ps, first);
  }

  /** Rolls back and asks for the transaction again after a backoff, within the retry time. */
  private void retryLater(PartitionQueues.PartitionState ps, TargetStream.TransientFailure e) {
    long first = ps.streamFirstOffset;
    if (ps.stream != null) {
      ps.stream.rollback();
    }
    end(ps);
    long now = System.nanoTime();
    if (ps.streamFailingSince == 0) {
      ps.streamFailingSince = now;
    }
    long elapsedMillis = (now - ps.streamFailingSince) / 1_000_000L;
    ApplyOptions o = applier.options();
    long backoff =
        ps.streamBackoffMillis == 0
            ? Math.max(1, o.initialBackoff().toMillis())
            : Math.min(ps.streamBackoffMillis * 2, Math.max(1, o.maxBackoff().toMillis()));
    if (elapsedMillis + backoff > o.maxRetryDuration().toMillis()) {
      host.poison(
          ps,
          new ApplyException(
              ApplyException.Reason.RETRIES_EXHAUSTED,
              null,
              null,
              null,
              "transient failure persisted for "
                  + elapsedMillis
                  + " ms (retry.max.duration.ms "
                  + o.maxRetryDuration().toMillis()
                  + "): "
                  + e.getMessage(),
              e),
          first);
      return;
    }
    ps.streamBackoffMillis = backoff;
    LOG.warn(
        "{}; rolled back, delivering it again from {}@{} in {} ms",
        e.getMessage(),
        ps.tp,
        first,
        backoff);
    applier.metrics().countRetry();
    applier.pause(backoff);
    host.rewind(ps, first);
  }

  private static void end(PartitionQueues.PartitionState ps) {
    ps.stream = null;
    ps.streamFirstOffset = -1;
  }

  private static TransactionBoundaryKey key(PartitionChunk c) {
    return new TransactionBoundaryKey(
        c.getSourceId(), c.getDatabaseId(), c.getCommitLsn(), c.getTransactionId());
  }
}
