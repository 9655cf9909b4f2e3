package io.trellara.identity;

import java.util.Arrays;
import net.openhft.hashing.LongTupleHashFunction;

/**
 * Probe version 1, a bounded index key: the identity itself if it is at most {@value #P} bytes,
 * else its first {@value #P} bytes followed by the 16-byte xxh3-128 digest of the whole identity
 * (seed 0x9E3779B185EBCA87; low 64 bits then high 64 bits, each big-endian). Never longer than
 * {@value #MAX_PROBE_BYTES} bytes and never a proof of equality: a match compares full identities.
 */
public final class RowIdentityProbe {
  public static final int P = 256;
  public static final int DIGEST_BYTES = 16;
  public static final int MAX_PROBE_BYTES = P + DIGEST_BYTES;
  public static final long SEED = 0x9E3779B185EBCA87L;

  private static final LongTupleHashFunction XX128 = LongTupleHashFunction.xx128(SEED);

  /** The 128-bit digest into {low, high}; replaceable only in tests, to force collisions. */
  @FunctionalInterface
  interface Digest {
    void digest(byte[] identity, long[] lowHigh);
  }

  static final Digest XXH3_128 = XX128::hashBytes;

  /** Reused result array, so an overflow probe allocates only the probe itself. */
  private static final ThreadLocal<long[]> LOW_HIGH = ThreadLocal.withInitial(() -> new long[2]);

  private RowIdentityProbe() {}

  /**
   * The probe; for an inline identity this is the same array (no copy), so treat both as immutable.
   */
  public static byte[] probe(byte[] identity) {
    return probe(identity, XXH3_128);
  }

  /** Whether {@link #probe} returns the identity itself (so the probe is exact). */
  public static boolean isInline(byte[] identity) {
    return identity.length <= P;
  }

  static byte[] probe(byte[] identity, Digest digest) {
    if (identity.length <= P) {
      return identity;
    }
    byte[] probe = Arrays.copyOf(identity, MAX_PROBE_BYTES);
    long[] d = LOW_HIGH.get();
    digest.digest(identity, d);
    putLong(probe, P, d[0]);
    putLong(probe, P + 8, d[1]);
    return probe;
  }

  private static void putLong(byte[] dst, int at, long v) {
    for (int i = 0; i < 8; i++) {
      dst[at + i] = (byte) (v >>> (56 - 8 * i));
    }
  }
}
