package io.trellara.identity;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.StringLength;
import net.openhft.hashing.LongTupleHashFunction;
import org.junit.jupiter.api.Test;

class ProbeTest {

  private static byte[] textId(String s) {
    return RowIdentityText.encode(RowIdentityDomain.KEYLESS_ROW, List.of("text"), List.of(s));
  }

  @Test
  void inlineProbeIsTheIdentity() {
    byte[] id = RowIdentityText.encode(RowIdentityDomain.SCAN_KEY, List.of("int8"), List.of("42"));
    assertThat(RowIdentityProbe.probe(id)).isEqualTo(id);
    assertThat(RowIdentityProbe.isInline(id)).isTrue();
    byte[] exactly256 = new byte[256];
    assertThat(RowIdentityProbe.probe(exactly256)).isEqualTo(exactly256);
  }

  @Test
  void overflowProbeIsPrefixThenDigestLowThenHighBigEndian() {
    byte[] id = textId("x".repeat(1000));
    byte[] probe = RowIdentityProbe.probe(id);
    assertThat(probe).hasSize(272);
    assertThat(Arrays.copyOf(probe, 256)).isEqualTo(Arrays.copyOf(id, 256));
    long[] d = LongTupleHashFunction.xx128(0x9E3779B185EBCA87L).hashBytes(id);
    assertThat(Hex.of(Arrays.copyOfRange(probe, 256, 272)))
        .isEqualTo(String.format("%016x%016x", d[0], d[1]));
  }

  @Test
  void digestUsesTheDocumentedXxh3Seed() {
    // xx128 reference value (PLATFORM.md), unseeded, proves low/high order of the library result
    long[] abc =
        LongTupleHashFunction.xx128()
            .hashBytes("abc".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    assertThat(String.format("%016x %016x", abc[0], abc[1]))
        .isEqualTo("78af5f94892f3950 06b05ab6733a6185");
    byte[] big = new byte[300];
    byte[] probe = RowIdentityProbe.probe(big);
    assertThat(Arrays.copyOfRange(probe, 256, 272))
        .isNotEqualTo(
            Arrays.copyOfRange(
                RowIdentityProbe.probe(
                    big, (i, out) -> LongTupleHashFunction.xx128().hashBytes(i, out)),
                256,
                272));
  }

  @Property(tries = 200)
  void probeNeverExceeds272Bytes(@ForAll @StringLength(max = 2000) String s) {
    assertThat(RowIdentityProbe.probe(textId(s)).length)
        .isLessThanOrEqualTo(RowIdentityProbe.MAX_PROBE_BYTES);
  }

  @Property(tries = 200)
  void differencesInTheFirst256BytesKeepTheirOrder(
      @ForAll @StringLength(max = 400) String a, @ForAll @StringLength(max = 400) String b) {
    byte[] ia = textId(a);
    byte[] ib = textId(b);
    int mismatch = Arrays.mismatch(ia, ib);
    if (mismatch >= 0 && mismatch < RowIdentityProbe.P) {
      assertThat(
              Integer.signum(
                  Arrays.compareUnsigned(RowIdentityProbe.probe(ia), RowIdentityProbe.probe(ib))))
          .isEqualTo(Integer.signum(Arrays.compareUnsigned(ia, ib)));
    }
  }

  @Test
  void longCommonPrefixIdentitiesGetDistinctProbes() {
    String prefix = "p".repeat(600);
    java.util.Set<String> probes = new java.util.HashSet<>();
    for (int i = 0; i < 1000; i++) {
      probes.add(Hex.of(RowIdentityProbe.probe(textId(prefix + i))));
    }
    assertThat(probes).hasSize(1000);
  }

  @Test
  void forcedDigestCollisionNeverMatchesDifferentIdentities() {
    RowIdentityProbe.Digest constant =
        (identity, out) -> {
          out[0] = 7L;
          out[1] = 7L;
        };
    byte[] a = textId("a".repeat(300) + "left");
    byte[] b = textId("a".repeat(300) + "right");
    ProbedIdentity pa = new ProbedIdentity(a, RowIdentityProbe.probe(a, constant));
    ProbedIdentity pb = new ProbedIdentity(b, RowIdentityProbe.probe(b, constant));
    ProbedIdentity pa2 = new ProbedIdentity(a.clone(), RowIdentityProbe.probe(a, constant));
    assertThat(pa.probe()).isEqualTo(pb.probe());
    assertThat(pa.probeEquals(pb)).as("the index sees a candidate").isTrue();
    assertThat(pa.matches(pb)).as("the full identity decides").isFalse();
    assertThat(pa).isNotEqualTo(pb);
    assertThat(pa.matches(pa2)).isTrue();
  }
}
