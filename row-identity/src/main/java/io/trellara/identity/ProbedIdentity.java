package io.trellara.identity;

import java.util.Arrays;

/**
 * An identity with its probe, as a sink's index would hold it. Matching is probe equality (the
 * index lookup) and then full-identity equality, which alone decides; a probe collision only adds a
 * candidate.
 */
public final class ProbedIdentity {
  private final byte[] identity;
  private final byte[] probe;

  public ProbedIdentity(byte[] identity) {
    this(identity, RowIdentityProbe.probe(identity));
  }

  ProbedIdentity(byte[] identity, byte[] probe) {
    this.identity = identity;
    this.probe = probe;
  }

  public byte[] identity() {
    return identity.clone();
  }

  public byte[] probe() {
    return probe.clone();
  }

  /** Whether the probes are equal: a candidate, not a match. */
  public boolean probeEquals(ProbedIdentity other) {
    return Arrays.equals(probe, other.probe);
  }

  /** The exact match: probe equal (index) and full identity equal (authoritative). */
  public boolean matches(ProbedIdentity other) {
    return probeEquals(other) && Arrays.equals(identity, other.identity);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ProbedIdentity p && matches(p);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(probe);
  }
}
