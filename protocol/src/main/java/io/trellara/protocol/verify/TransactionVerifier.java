package io.trellara.protocol.verify;

import com.google.protobuf.Message;
import io.trellara.protocol.EventKey;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import io.trellara.protocol.validation.Misreading;
import io.trellara.protocol.validation.ProtocolRule;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.protocol.validation.Violations;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Every rule a set of received messages breaks, for reports rather than the hot path (the CLI's
 * {@code verify}, the conformance kit): each message is decoded on its own with every rule judged,
 * then, when every message passed and they hold a manifest and its commit marker, the barrier. A
 * consumer that refuses a message stops there, so a barrier holding a refused message is never
 * judged.
 */
public final class TransactionVerifier {
  private TransactionVerifier() {}

  /** One message as received: its kind (named by the carrier) and its exact bytes. */
  public record Received(MessageKind kind, byte[] bytes) {}

  /**
   * A message judged on its own: the parsed message (null when its bytes were refused) and what it
   * broke.
   */
  public record Checked(
      MessageKind kind, Message message, List<ProtocolViolationException> violations) {
    public boolean passed() {
      return violations.isEmpty();
    }
  }

  /**
   * The messages judged on their own, and the barrier's violations (empty when it was not judged).
   */
  public record Verdict(
      List<Checked> messages, Optional<List<ProtocolViolationException>> barrier) {
    /** Every rule broken, by any message or by the barrier. */
    public Set<ProtocolRule> rules() {
      Set<ProtocolRule> rules = EnumSet.noneOf(ProtocolRule.class);
      messages.forEach(m -> m.violations().forEach(v -> rules.add(v.rule())));
      barrier.ifPresent(b -> b.forEach(v -> rules.add(v.rule())));
      return rules;
    }
  }

  public static Checked check(MessageKind kind, byte[] bytes) {
    Violations v = Violations.collecting();
    Message message = TrellaraCodec.decode(kind, bytes, v);
    return new Checked(kind, message, v.all());
  }

  public static Verdict verify(List<Received> received) {
    List<Checked> checked = new ArrayList<>(received.size());
    received.forEach(r -> checked.add(check(r.kind(), r.bytes())));
    return new Verdict(checked, barrier(checked));
  }

  /**
   * The barrier of messages already checked: judged when every one passed and a manifest and a
   * commit marker are among them; empty otherwise (a barrier still waiting is not broken). The
   * first manifest and the first marker are the barrier's, paired by position whatever identities
   * they carry (the rules judge those), with every chunk. A later manifest or marker with the
   * checksum of the first is a redelivery, absorbed; a later different manifest is not the one the
   * marker binds (MARKER_MANIFEST_CHECKSUM_MISMATCH), and a later different marker is judged
   * against the manifest like the first.
   */
  public static Optional<List<ProtocolViolationException>> barrier(List<Checked> checked) {
    List<Message> passed = new ArrayList<>(checked.size());
    for (Checked c : checked) {
      if (!c.passed()) {
        return Optional.empty();
      }
      passed.add(c.message());
    }
    Violations v = Violations.collecting();
    return judgeBarrier(passed, v) ? Optional.of(v.all()) : Optional.empty();
  }

  /**
   * Judges the barrier of messages that each passed on their own, in stream order, reporting to
   * {@code v} (as {@link #barrier}); false when they hold no manifest and marker to judge.
   */
  public static boolean judgeBarrier(List<Message> passed, Violations v) {
    List<TransactionManifest> manifests = new ArrayList<>();
    List<TransactionCommitMarker> markers = new ArrayList<>();
    List<PartitionChunk> chunks = new ArrayList<>();
    for (Message message : passed) {
      if (message instanceof TransactionManifest m) {
        manifests.add(m);
      } else if (message instanceof TransactionCommitMarker k) {
        markers.add(k);
      } else if (message instanceof PartitionChunk p) {
        chunks.add(p);
      }
    }
    boolean withoutMarker = Misreading.on(Misreading.BARRIER_JUDGED_WITHOUT_MARKER);
    if (manifests.isEmpty() || (markers.isEmpty() && !withoutMarker)) {
      return false;
    }
    TransactionManifest manifest = manifests.get(0);
    TransactionCommitMarker marker = markers.isEmpty() ? null : markers.get(0);
    if (marker != null
        && Misreading.on(Misreading.BARRIER_PAIRED_BY_IDENTITY)
        && !BarrierVerifier.txKey(manifest)
            .equals(
                EventKey.transaction(
                    marker.getSourceId(),
                    marker.getSourceCommitLsn(),
                    marker.getTransactionId()))) {
      return false;
    }
    BarrierVerifier.verify(manifest, marker, chunks, v);
    if (!Misreading.on(Misreading.LATER_MANIFEST_IGNORED)) {
      for (TransactionManifest later : manifests.subList(1, manifests.size())) {
        if (later.getChecksum() != manifest.getChecksum() && marker != null) {
          BarrierVerifier.verifyBinding(later, marker, v);
        }
      }
    }
    for (TransactionCommitMarker later :
        markers.subList(Math.min(1, markers.size()), markers.size())) {
      if (later.getChecksum() != marker.getChecksum()) {
        BarrierVerifier.verifyMarker(manifest, later, v);
      }
    }
    return true;
  }
}
