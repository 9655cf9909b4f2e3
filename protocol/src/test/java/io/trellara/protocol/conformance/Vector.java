package io.trellara.protocol.conformance;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.validation.ProtocolRule;
import io.trellara.protocol.verify.TransactionVerifier;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * One conformance vector: messages in stream order and the verdict a correct consumer reaches:
 * accept (no rule), or reject for exactly the rules listed.
 */
public record Vector(
    String name,
    Set<ProtocolRule> rules,
    ProtocolRule first,
    String description,
    List<Part> messages) {

  /** A message of a vector: its kind and its exact bytes. */
  public record Part(MessageKind kind, byte[] bytes) {
    TransactionVerifier.Received received() {
      return new TransactionVerifier.Received(kind, bytes);
    }
  }

  /**
   * A vector breaking {@code first} and {@code more}: {@code first} is the rule a consumer judging
   * in docs/protocol.md's order reports first.
   */
  public Vector(
      String name,
      ProtocolRule first,
      String description,
      List<Part> messages,
      ProtocolRule... more) {
    this(name, EnumSet.of(first, more), first, description, messages);
  }

  public static Vector accept(String name, String description, List<Part> messages) {
    return new Vector(name, EnumSet.noneOf(ProtocolRule.class), null, description, messages);
  }

  public boolean valid() {
    return rules.isEmpty();
  }
}
