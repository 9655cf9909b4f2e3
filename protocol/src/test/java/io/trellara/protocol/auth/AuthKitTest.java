package io.trellara.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.auth.RecordAuthenticationException.Reason;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.sample.SampleTransactions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The conformance kit's record authentication vectors ({@code conformance/auth/}): a key (id and
 * secret), the topic and partition a record is read from, its value bytes ({@code record.bin}) and
 * its {@code trellara-auth} header ({@code header.bin}), with the verdict. The code reproduces
 * every header it signs and reaches every verdict. Regenerate with {@code ./mvnw -pl protocol test
 * -Dtest=AuthKitTest -Dauth.write=true}.
 */
class AuthKitTest {
  static final Path KIT = Path.of(System.getProperty("auth.dir", "../conformance/auth"));
  static final String SECRET = "trellara-conformance-secret-01";
  static final String TOPIC = "trellara.pg-main.strict";

  /**
   * One vector: the key the record was signed with, where it was signed, the key and place a
   * consumer verifies with, and the verdict (null: accepted).
   */
  record Case(
      String name,
      String description,
      String signingId,
      int signedPartition,
      String readTopic,
      int readPartition,
      int inserts,
      byte headerVersion,
      Reason expected) {

    byte[] record() {
      return TrellaraCodec.encode(SampleTransactions.envelope(inserts, false)).bytes();
    }

    byte[] header() {
      byte[] h =
          RecordMac.sign(AuthKey.ofText(signingId, SECRET), TOPIC, signedPartition, record());
      h[0] = headerVersion;
      return h;
    }
  }

  static final List<Case> CASES =
      List.of(
          new Case(
              "auth-accept-envelope",
              "an envelope signed with k1 for the topic's partition 0, read there",
              "k1",
              0,
              TOPIC,
              0,
              3,
              (byte) 1,
              null),
          new Case(
              "auth-accept-1kb-record-long-key-id",
              "a record of about 1 kB under a 64-character key id, partition 5",
              "k".repeat(60) + "-v.2",
              5,
              TOPIC,
              5,
              5,
              (byte) 1,
              null),
          new Case(
              "auth-reject-other-partition",
              "signed for partition 0, read from partition 1: the partition is in the MAC input",
              "k1",
              0,
              TOPIC,
              1,
              3,
              (byte) 1,
              Reason.BAD_TAG),
          new Case(
              "auth-reject-other-topic",
              "signed for the strict topic, read from another: the topic is in the MAC input",
              "k1",
              0,
              TOPIC + "-copy",
              0,
              3,
              (byte) 1,
              Reason.BAD_TAG),
          new Case(
              "auth-reject-unknown-key-id",
              "signed with a key id the consumer does not hold (k9)",
              "k9",
              0,
              TOPIC,
              0,
              3,
              (byte) 1,
              Reason.UNKNOWN_KEY_ID),
          new Case(
              "auth-reject-header-version-2",
              "a header whose version byte is 2: only 1 is defined",
              "k1",
              0,
              TOPIC,
              0,
              3,
              (byte) 2,
              Reason.MALFORMED_HEADER));

  /** The consumer's verdict on a case, from its files alone. */
  private static Reason verdict(Case c, byte[] record, byte[] header) {
    List<AuthKey> held =
        List.of(AuthKey.ofText("k1", SECRET), AuthKey.ofText("k".repeat(60) + "-v.2", SECRET));
    try {
      new RecordVerifier(held, false).verify(c.readTopic(), c.readPartition(), record, header);
      return null;
    } catch (RecordAuthenticationException e) {
      return e.reason();
    }
  }

  @Test
  void theCodeReproducesEveryVectorAndReachesItsVerdict() throws IOException {
    if (Boolean.getBoolean("auth.write")) {
      write();
    }
    List<String> index = Files.readAllLines(KIT.resolve("index.txt"));
    assertThat(index).containsExactlyElementsOf(CASES.stream().map(Case::name).sorted().toList());
    for (Case c : CASES) {
      Path dir = KIT.resolve(c.name());
      byte[] record = Files.readAllBytes(dir.resolve("record.bin"));
      byte[] header = Files.readAllBytes(dir.resolve("header.bin"));
      assertThat(record).as(c.name() + " record").isEqualTo(c.record());
      assertThat(header).as(c.name() + " header").isEqualTo(c.header());
      assertThat(verdict(c, record, header)).as(c.name()).isEqualTo(c.expected());
      String json = Files.readString(dir.resolve("vector.json"));
      assertThat(field(json, "tag_hex"))
          .isEqualTo(HexFormat.of().formatHex(header, header.length - 32, header.length));
      assertThat(json).contains("\"expect\": \"" + (c.expected() == null ? "accept" : "reject"));
    }
  }

  private static String field(String json, String name) {
    Matcher m = Pattern.compile("\"" + name + "\": \"([^\"]*)\"").matcher(json);
    assertThat(m.find()).as(name).isTrue();
    return m.group(1);
  }

  private static void write() throws IOException {
    Files.createDirectories(KIT);
    for (Case c : CASES) {
      Path dir = KIT.resolve(c.name());
      Files.createDirectories(dir);
      byte[] record = c.record();
      byte[] header = c.header();
      Files.write(dir.resolve("record.bin"), record);
      Files.write(dir.resolve("header.bin"), header);
      String json =
          "{\n"
              + "  \"name\": \""
              + c.name()
              + "\",\n"
              + "  \"description\": \""
              + c.description()
              + "\",\n"
              + "  \"expect\": \""
              + (c.expected() == null ? "accept" : "reject")
              + "\",\n"
              + "  \"reason\": "
              + (c.expected() == null ? "null" : "\"" + c.expected() + "\"")
              + ",\n"
              + "  \"keys\": [{\"id\": \"k1\", \"secret_utf8\": \""
              + SECRET
              + "\"}, {\"id\": \""
              + "k".repeat(60)
              + "-v.2\", \"secret_utf8\": \""
              + SECRET
              + "\"}],\n"
              + "  \"signed_with\": \""
              + c.signingId()
              + "\",\n"
              + "  \"signed_topic\": \""
              + TOPIC
              + "\",\n"
              + "  \"signed_partition\": "
              + c.signedPartition()
              + ",\n"
              + "  \"read_topic\": \""
              + c.readTopic()
              + "\",\n"
              + "  \"read_partition\": "
              + c.readPartition()
              + ",\n"
              + "  \"record\": {\"file\": \"record.bin\", \"kind\": \"envelope\", \"bytes\": "
              + record.length
              + "},\n"
              + "  \"header\": {\"file\": \"header.bin\", \"name\": \"trellara-auth\", \"bytes\": "
              + header.length
              + "},\n"
              + "  \"tag_hex\": \""
              + HexFormat.of().formatHex(header, header.length - 32, header.length)
              + "\"\n"
              + "}\n";
      Files.writeString(dir.resolve("vector.json"), json, StandardCharsets.UTF_8);
    }
    Files.write(KIT.resolve("index.txt"), CASES.stream().map(Case::name).sorted().toList());
  }
}
