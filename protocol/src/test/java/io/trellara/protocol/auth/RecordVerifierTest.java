package io.trellara.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.auth.RecordAuthenticationException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecordVerifierTest {
  static final AuthKey K1 = AuthKey.ofText("k1", "0123456789abcdef-one");
  static final AuthKey K2 = AuthKey.ofText("k2", "0123456789abcdef-two");
  static final byte[] VALUE = "the record's bytes".getBytes(StandardCharsets.UTF_8);

  private static Reason reason(Runnable r) {
    try {
      r.run();
    } catch (RecordAuthenticationException e) {
      return e.reason();
    }
    throw new AssertionError("accepted");
  }

  @Test
  void aSignedRecordVerifiesUnderEveryAcceptedKeyOnlyWhereItWasSigned() {
    byte[] h1 = RecordMac.sign(K1, "strict", 0, VALUE);
    byte[] h2 = RecordMac.sign(K2, "strict", 0, VALUE);
    RecordVerifier both = new RecordVerifier(List.of(K1, K2), false);
    assertThat(both.verify("strict", 0, VALUE, h1)).isEqualTo("k1");
    assertThat(both.verify("strict", 0, VALUE, h2)).isEqualTo("k2");
    assertThat(reason(() -> both.verify("strict", 1, VALUE, h1))).isEqualTo(Reason.BAD_TAG);
    assertThat(reason(() -> both.verify("strict2", 0, VALUE, h1))).isEqualTo(Reason.BAD_TAG);
    byte[] altered = VALUE.clone();
    altered[3] ^= 1;
    assertThat(reason(() -> both.verify("strict", 0, altered, h1))).isEqualTo(Reason.BAD_TAG);
    byte[] tag = h1.clone();
    tag[tag.length - 1] ^= 1;
    assertThat(reason(() -> both.verify("strict", 0, VALUE, tag))).isEqualTo(Reason.BAD_TAG);
  }

  @Test
  void aKeyNotListedIsUnknownAndAHeaderOfAnotherLayoutMalformed() {
    RecordVerifier onlyK1 = new RecordVerifier(List.of(K1), false);
    byte[] h2 = RecordMac.sign(K2, "strict", 0, VALUE);
    assertThat(reason(() -> onlyK1.verify("strict", 0, VALUE, h2)))
        .isEqualTo(Reason.UNKNOWN_KEY_ID);
    byte[] h1 = RecordMac.sign(K1, "strict", 0, VALUE);
    assertThat(reason(() -> onlyK1.verify("strict", 0, VALUE, Arrays.copyOf(h1, h1.length - 1))))
        .isEqualTo(Reason.MALFORMED_HEADER);
    byte[] v2 = h1.clone();
    v2[0] = 2;
    assertThat(reason(() -> onlyK1.verify("strict", 0, VALUE, v2)))
        .isEqualTo(Reason.MALFORMED_HEADER);
    assertThat(reason(() -> onlyK1.verify("strict", 0, VALUE, new byte[0])))
        .isEqualTo(Reason.MALFORMED_HEADER);
  }

  @Test
  void requiredRefusesAnUnsignedRecordOptionalAcceptsItButNotABadTag() {
    RecordVerifier required = new RecordVerifier(List.of(K1), false);
    RecordVerifier optional = new RecordVerifier(List.of(K1), true);
    assertThat(reason(() -> required.verify("strict", 0, VALUE, null))).isEqualTo(Reason.NO_HEADER);
    assertThat(optional.verify("strict", 0, VALUE, null)).isNull();
    byte[] wrong = RecordMac.sign(K1, "strict", 0, "other".getBytes(StandardCharsets.UTF_8));
    assertThat(reason(() -> optional.verify("strict", 0, VALUE, wrong))).isEqualTo(Reason.BAD_TAG);
  }

  @Test
  void theHeaderIsVersionKeyIdAndTagAndTheMacIsHmacSha256OfTheDocumentedInput() throws Exception {
    byte[] h = RecordMac.sign(K1, "t", 258, VALUE);
    assertThat(h).hasSize(2 + 2 + 32);
    assertThat(h[0]).isEqualTo((byte) 1);
    assertThat(h[1]).isEqualTo((byte) 2);
    assertThat(new String(h, 2, 2, StandardCharsets.US_ASCII)).isEqualTo("k1");
    javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
    mac.init(
        new javax.crypto.spec.SecretKeySpec(
            "0123456789abcdef-one".getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    mac.update("trellara-record-auth-v1\0".getBytes(StandardCharsets.US_ASCII));
    mac.update(new byte[] {0, 1, 't', 0, 0, 1, 2});
    assertThat(Arrays.copyOfRange(h, 4, 36)).isEqualTo(mac.doFinal(VALUE));
  }

  @Test
  void keysAreCheckedWhenMade() {
    assertThatThrownBy(() -> AuthKey.ofText("k1", "short")).hasMessageContaining("at least 16");
    assertThatThrownBy(() -> AuthKey.ofText("k 1", "0123456789abcdef"))
        .hasMessageContaining("letters, digits");
    assertThatThrownBy(() -> new RecordVerifier(List.of(K1, K1), false))
        .hasMessageContaining("twice");
    assertThat(K1.toString()).doesNotContain("0123456789");
  }
}
