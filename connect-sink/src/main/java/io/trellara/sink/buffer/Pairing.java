package io.trellara.sink.buffer;

import com.google.protobuf.Message;
import io.trellara.protocol.EventKey;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.sink.port.FlowKey;
import java.util.List;

/**
 * Envelopes, manifests and commit markers into a partition's queue in arrival order: a manifest
 * waits for the marker that follows it and is bound to it ({@link BarrierVerifier#verifyMarker});
 * the pair is a barrier. A marker that does not bind its manifest is poison at the manifest; a
 * marker without a manifest queues as an orphan (fine only as the replay of an applied
 * transaction).
 */
final class Pairing {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Pairing.class);

  private Pairing() {}

  /** The segment's records after its chunks: poison, reassembled barriers and messages queued. */
  static void enqueue(BufferState state, List<Step> segmentSteps) {
    for (Step step : segmentSteps) {
      if (step.ps().poisoned) {
        continue; // after a poison: not looked at
      }
      step.ps().seen(step.lastOffset());
      if (step.poison() != null) {
        state.poison(step.ps(), step.poison(), step.in().offset());
      } else if (step.assembled()) {
        step.ps().boundaries = true;
        step.ps()
            .queue
            .add(
                new Items.EnvelopeItem(
                    (io.trellara.protocol.v1.TransactionEnvelope) step.message(),
                    step.in().offset(),
                    step.lastOffset(),
                    -1,
                    true));
      } else if (step.message() != null) {
        enqueue(state, step.ps(), step.in(), step.message());
      }
    }
  }

  static void enqueue(BufferState buffer, PartitionState ps, Input in, Message message) {
    ps.boundaries = true;
    if (message instanceof TransactionEnvelope e) {
      if (ps.pendingManifest != null) {
        discardOrphan(
            buffer,
            ps,
            in,
            "envelope of "
                + EventKey.transaction(e.getSourceId(), e.getCommitLsn(), e.getTransactionId()));
      }
      ps.queue.add(
          new Items.EnvelopeItem(
              e, in.offset(), in.offset(), in.bytes() == null ? -1 : in.bytes().length, false));
    } else if (message instanceof TransactionManifest m) {
      if (ps.pendingManifest != null) {
        TransactionManifest pending = ps.pendingManifest.manifest();
        if (!FlowKey.boundaryKey(pending).equals(FlowKey.boundaryKey(m))) {
          discardOrphan(buffer, ps, in, "manifest of " + key(m));
        }
        // else the same transaction published again (a source restart): the newer one replaces it
      }
      ps.pendingManifest = new Items.PendingManifest(m, in.offset());
    } else if (message instanceof TransactionCommitMarker k) {
      Items.PendingManifest pending = ps.pendingManifest;
      if (pending == null) {
        ps.queue.add(new Items.OrphanMarkerItem(k, in));
        return;
      }
      ps.pendingManifest = null;
      try {
        BarrierVerifier.verifyMarker(pending.manifest(), k);
      } catch (ProtocolViolationException e) {
        buffer.poison(ps, e, pending.offset());
        return;
      }
      ps.queue.add(new Items.BarrierItem(pending.manifest(), pending.offset(), k, in.offset()));
    } else {
      throw new IllegalStateException("not a Trellara message: " + message.getClass().getName());
    }
  }

  /**
   * A manifest whose commit marker never came, followed by another transaction: the source stopped
   * between the two (a crash) and re-publishes from an earlier point. The lone manifest proves
   * nothing and nothing of its transaction was applied; it is dropped, and the transaction is
   * applied once when it arrives again whole.
   */
  private static void discardOrphan(BufferState buffer, PartitionState ps, Input in, String next) {
    Items.PendingManifest pending = ps.pendingManifest;
    ps.pendingManifest = null;
    buffer.orphanDiscarded();
    LOG.warn(
        "Discarding the manifest of {} at {}@{}: its commit marker never arrived ({} is the {});"
            + " a source that stopped between the two re-publishes the transaction whole",
        key(pending.manifest()),
        ps.tp,
        pending.offset(),
        in.where(),
        next);
  }

  private static String key(TransactionManifest m) {
    return EventKey.transaction(m.getSourceId(), m.getSourceCommitLsn(), m.getTransactionId());
  }
}
