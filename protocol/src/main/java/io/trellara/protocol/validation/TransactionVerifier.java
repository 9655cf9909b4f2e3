package io.trellara.protocol.validation;

import com.google.protobuf.Message;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionManifest;
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
   * commit marker are among them (the last of each, with every chunk); empty otherwise.
   */
  public static Optional<List<ProtocolViolationException>> barrier(List<Checked> checked) {
    TransactionManifest manifest = null;
    TransactionCommitMarker marker = null;
    List<PartitionChunk> chunks = new ArrayList<>();
    for (Checked c : checked) {
      if (!c.passed()) {
        return Optional.empty();
      }
      if (c.message() instanceof TransactionManifest m) {
        manifest = m;
      } else if (c.message() instanceof TransactionCommitMarker k) {
        marker = k;
      } else if (c.message() instanceof PartitionChunk p) {
        chunks.add(p);
      }
    }
    if (manifest == null || marker == null) {
      return Optional.empty();
    }
    Violations v = Violations.collecting();
    BarrierVerifier.verify(manifest, marker, chunks, v);
    return Optional.of(v.all());
  }
}
