package io.trellara.source.pgoutput;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.source.pgoutput.PgOutputCaptureScenarios.Scenario;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Whatever bytes arrive, the parser returns a message or throws {@link PgOutputProtocolException}.
 */
class PgOutputParserPropertiesTest {

  private static final byte[] KNOWN_TYPES =
      "BCORYIUDTMSEcA".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final List<byte[]> FIXTURE_MESSAGES = loadSmallFixtures();

  @Property(tries = 3000)
  void randomBytesParseOrFailWithTheTypedException(
      @ForAll @Size(max = 300) byte[] bytes,
      @ForAll @IntRange(min = 1, max = 2) int version,
      @ForAll boolean inStreamBlock) {
    parsesOrFailsTyped(bytes, version, inStreamBlock);
  }

  @Property(tries = 3000)
  void randomBodiesOfKnownTypesParseOrFailWithTheTypedException(
      @ForAll("knownTypeMessages") byte[] bytes,
      @ForAll @IntRange(min = 1, max = 2) int version,
      @ForAll boolean inStreamBlock) {
    parsesOrFailsTyped(bytes, version, inStreamBlock);
  }

  @Property(tries = 3000)
  void mutatedFixtureMessagesParseOrFailWithTheTypedException(
      @ForAll("mutatedFixtureMessages") byte[] bytes, @ForAll boolean inStreamBlock) {
    parsesOrFailsTyped(bytes, 2, inStreamBlock);
  }

  @Provide
  Arbitrary<byte[]> knownTypeMessages() {
    return Arbitraries.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
        .flatMap(
            t ->
                Arbitraries.bytes()
                    .array(byte[].class)
                    .ofMaxSize(120)
                    .map(
                        body -> {
                          byte[] m = new byte[body.length + 1];
                          m[0] = KNOWN_TYPES[t];
                          System.arraycopy(body, 0, m, 1, body.length);
                          return m;
                        }));
  }

  @Provide
  Arbitrary<byte[]> mutatedFixtureMessages() {
    return Arbitraries.integers()
        .between(0, FIXTURE_MESSAGES.size() - 1)
        .flatMap(
            i -> {
              byte[] original = FIXTURE_MESSAGES.get(i);
              return Arbitraries.integers()
                  .between(1, Math.max(1, original.length - 1))
                  .flatMap(
                      at ->
                          Arbitraries.bytes()
                              .map(
                                  b -> {
                                    byte[] m = original.clone();
                                    if (at < m.length) {
                                      m[at] = b;
                                    }
                                    return m;
                                  }));
            });
  }

  private static void parsesOrFailsTyped(byte[] bytes, int version, boolean inStreamBlock) {
    PgOutputParser parser = new PgOutputParser(version);
    try {
      PgOutputMessage message = parser.parse(ByteBuffer.wrap(bytes), inStreamBlock);
      assertThat(message.type()).isEqualTo(bytes[0]);
    } catch (PgOutputProtocolException expected) {
      assertThat(expected.position()).isBetween(0, bytes.length);
    }
  }

  private static List<byte[]> loadSmallFixtures() {
    List<byte[]> all = new ArrayList<>();
    for (Scenario s : Scenario.values()) {
      if (s != Scenario.STREAMED_PROTO2 && s != Scenario.LARGE_PROTO1) {
        all.addAll(PgOutputFixtures.load(s.fileName));
      }
    }
    all.addAll(PgOutputFixtures.load(Scenario.STREAMED_PROTO2.fileName).subList(0, 3));
    return all;
  }
}
