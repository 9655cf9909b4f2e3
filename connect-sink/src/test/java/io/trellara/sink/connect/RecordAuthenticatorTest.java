package io.trellara.sink.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.connect.common.auth.AuthSettings;
import io.trellara.converter.TrellaraConverter;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.auth.AuthKey;
import io.trellara.protocol.auth.RecordMac;
import io.trellara.protocol.codec.ReceivedBytes;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.sample.SampleTransactions;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/** required, optional and off on the sink, over the two ways a record's bytes reach the task. */
class RecordAuthenticatorTest {
  static final String SECRET = "a-secret-of-enough-bytes";
  static final byte[] BYTES = TrellaraCodec.encode(SampleTransactions.envelope(2, false)).bytes();
  static final byte[] SIGNED = RecordMac.sign(AuthKey.ofText("k1", SECRET), "strict", 0, BYTES);

  private final List<String> seen = new ArrayList<>();

  private RecordAuthenticator auth(String mode) {
    Map<String, String> p = new HashMap<>();
    p.put("record.authentication.keys", "k1=" + SECRET + ",k2=another-secret-of-bytes");
    if (mode != null) {
      p.put("record.authentication", mode);
    }
    return RecordAuthenticator.of(AuthSettings.of(p, false), seen::add);
  }

  /** As TrellaraConverter hands it: the bytes unread, with its headers. */
  private static SinkRecord received(int partition, byte[] header) {
    ReceivedBytes m = new ReceivedBytes(BYTES, null, header);
    return new SinkRecord("strict", partition, Schema.STRING_SCHEMA, "src:0/1:7", null, m, 41);
  }

  /** As ByteArrayConverter (value and header converter) hands it. */
  private static SinkRecord raw(byte[] header) {
    ConnectHeaders h = new ConnectHeaders();
    if (header != null) {
      h.addBytes("trellara-auth", header);
    }
    return new SinkRecord("strict", 0, Schema.STRING_SCHEMA, "k", null, BYTES, 42, 0L, null, h);
  }

  @Test
  void requiredIsTheDefaultWithKeysAndRefusesUnsignedForgedAndMovedRecords() {
    RecordAuthenticator required = auth(null);
    assertThat(required.on()).isTrue();
    required.check(received(0, SIGNED));
    required.check(raw(SIGNED));
    assertThat(seen).containsExactly("k1");
    assertThatThrownBy(() -> required.check(received(0, null)))
        .isInstanceOf(DataException.class)
        .hasMessageStartingWith("AUTH_FAILED (reason NO_HEADER)")
        .hasMessageContaining("topic strict, partition 0, offset 41, key id none")
        .hasMessageContaining("\"src:0/1:7\"");
    assertThatThrownBy(() -> required.check(received(1, SIGNED)))
        .hasMessageStartingWith("AUTH_FAILED (reason BAD_TAG)")
        .hasMessageContaining("partition 1, offset 41, key id k1");
    byte[] unknown = RecordMac.sign(AuthKey.ofText("k9", SECRET), "strict", 0, BYTES);
    assertThatThrownBy(() -> required.check(raw(unknown)))
        .hasMessageStartingWith("AUTH_FAILED (reason UNKNOWN_KEY_ID)")
        .hasMessageContaining("key id k9");
  }

  @Test
  void optionalAcceptsAnUnsignedRecordButRefusesABadTag() {
    RecordAuthenticator optional = auth("optional");
    optional.check(received(0, null));
    optional.check(raw(null));
    byte[] bad = SIGNED.clone();
    bad[bad.length - 1] ^= 1;
    assertThatThrownBy(() -> optional.check(raw(bad)))
        .hasMessageStartingWith("AUTH_FAILED (reason BAD_TAG)");
  }

  @Test
  void offChecksNothingAndIsTheDefaultWithoutKeys() {
    RecordAuthenticator off = auth("off");
    byte[] bad = SIGNED.clone();
    bad[5] ^= 1;
    off.check(raw(bad));
    off.check(received(0, null));
    assertThat(RecordAuthenticator.of(AuthSettings.of(Map.of(), false), seen::add).on()).isFalse();
    assertThat(seen).isEmpty();
  }

  /**
   * Through TrellaraConverter, as a worker runs it: a forged record (bytes no codec would accept, a
   * kind header no kind has, with or without a tag) reaches the task unread, and is refused by its
   * tag before anything reads its value or its kind.
   */
  @Test
  void throughTheConverterNothingIsReadBeforeTheTag() {
    TrellaraConverter converter = new TrellaraConverter();
    converter.configure(Map.of("render", "protobuf"), false);
    byte[] junk = "not a Trellara message".getBytes(StandardCharsets.UTF_8);
    RecordAuthenticator required = auth(null);
    for (byte[] tag : new byte[][] {null, SIGNED, {1, 2}}) {
      RecordHeaders headers = new RecordHeaders();
      headers.add(MessageKind.HEADER, "bogus\nkind".getBytes(StandardCharsets.UTF_8));
      if (tag != null) {
        headers.add("trellara-auth", tag);
      }
      Object value = converter.toConnectData("strict", headers, junk).value(); // reads nothing
      SinkRecord r = new SinkRecord("strict", 0, Schema.STRING_SCHEMA, "k", null, value, 7);
      assertThatThrownBy(() -> required.check(r))
          .hasMessageStartingWith(
              "AUTH_FAILED (reason "
                  + (tag == null ? "NO_HEADER" : tag == SIGNED ? "BAD_TAG" : "MALFORMED_HEADER"));
      // with authentication off, the codec is what refuses it, naming the rule, escaped
      auth("off").check(r);
      assertThatThrownBy(() -> RecordInputs.input(r))
          .isInstanceOf(DataException.class)
          .hasMessageContaining("Trellara message rejected: unknown message kind \"bogus\\nkind\"");
    }
  }

  @Test
  void requiredWithoutKeysIsAConfigurationProblem() {
    assertThat(SinkConfigRules.check(Map.of("record.authentication", "required")))
        .anySatisfy(p -> assertThat(p.message()).contains("needs keys"));
  }
}
