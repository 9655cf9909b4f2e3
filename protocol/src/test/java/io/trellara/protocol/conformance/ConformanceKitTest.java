package io.trellara.protocol.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.util.JsonFormat;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.Checksums;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.validation.ProtocolRule;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs the conformance kit in {@code conformance/vectors} exactly as a third-party consumer would
 * (files in, verdicts out), and checks the committed files are what the generator produces today.
 * Regenerate with {@code ./mvnw -pl protocol test -Dtest=ConformanceKitTest
 * -Dconformance.write=true}.
 */
class ConformanceKitTest {
  static final Path KIT = Path.of(System.getProperty("conformance.dir", "../conformance/vectors"));
  private static final String INDEX = "index.txt";
  private static final Pattern RULES = Pattern.compile("\"rules\": \\[([^\\]]*)\\]");
  private static final Pattern RULE = Pattern.compile("\"([A-Z_]+)\"");
  private static final Pattern FIRST = Pattern.compile("\"first_rule\": \"([A-Z_]+)\"");
  private static final Pattern FILE =
      Pattern.compile("\"file\": \"([^\"]+)\", \"kind\": \"([a-z_]+)\"");

  // that every rule has a vector breaking it: ProtocolDocumentTest, beside its row in
  // docs/protocol.md

  /**
   * Graded by membership: every rule a vector breaks is listed, and every rule listed is broken.
   */
  @TestFactory
  Stream<DynamicTest> eachVectorBreaksExactlyTheRulesItLists() {
    return ConformanceVectors.all().stream()
        .map(
            v ->
                DynamicTest.dynamicTest(
                    v.name(),
                    () ->
                        assertThat(VectorJudge.rulesBroken(v))
                            .as(v.description())
                            .isEqualTo(v.rules())));
  }

  /**
   * A consumer that stops at its first broken rule, judging in docs/protocol.md's order, names
   * exactly the vector's first rule; a collecting one finds it first too.
   */
  @TestFactory
  Stream<DynamicTest> failFastVerdictIsTheFirstRule() {
    return ConformanceVectors.all().stream()
        .map(
            v ->
                DynamicTest.dynamicTest(
                    v.name(),
                    () -> {
                      assertThat(VectorJudge.judge(v)).as(v.description()).isEqualTo(v.first());
                      assertThat(VectorJudge.firstCollected(v))
                          .as(v.description())
                          .isEqualTo(v.first());
                    }));
  }

  /**
   * A consumer that verifies chunk by chunk as they arrive reaches a listed verdict on every
   * vector.
   */
  @TestFactory
  Stream<DynamicTest> streamingVerdictIsOneOfTheListedRules() {
    return ConformanceVectors.all().stream()
        .map(
            v ->
                DynamicTest.dynamicTest(
                    v.name(), () -> assertVerdict(v, VectorJudge.judgeStreaming(v))));
  }

  private static void assertVerdict(Vector v, ProtocolRule verdict) {
    if (v.valid()) {
      assertThat(verdict).as(v.description()).isNull();
    } else {
      assertThat(verdict).as(v.description()).isIn(v.rules());
    }
  }

  @Test
  void committedKitMatchesTheGenerator() throws IOException {
    if (Boolean.getBoolean("conformance.write")) {
      write(ConformanceVectors.all());
    }
    List<Vector> generated = ConformanceVectors.all();
    try (Stream<Path> dirs = Files.list(KIT)) {
      assertThat(dirs.filter(Files::isDirectory).count()).isEqualTo(generated.size());
    }
    assertThat(Files.readAllLines(KIT.resolve(INDEX))).isEqualTo(names(generated));
    for (Vector v : generated) {
      Vector onDisk = read(KIT.resolve(v.name()));
      assertThat(onDisk.rules()).as(v.name()).isEqualTo(v.rules());
      assertThat(onDisk.first()).as(v.name()).isEqualTo(v.first());
      assertThat(onDisk.messages()).hasSameSizeAs(v.messages());
      for (int i = 0; i < v.messages().size(); i++) {
        assertThat(onDisk.messages().get(i).bytes())
            .as(v.name() + " message " + i)
            .isEqualTo(v.messages().get(i).bytes());
      }
    }
  }

  @TestFactory
  Stream<DynamicTest> committedVectorsReachTheirVerdict() throws IOException {
    List<Path> dirs;
    try (Stream<Path> s = Files.list(KIT)) {
      dirs = s.filter(Files::isDirectory).sorted().toList();
    }
    return dirs.stream()
        .map(
            dir ->
                DynamicTest.dynamicTest(
                    dir.getFileName().toString(),
                    () -> {
                      Vector v = read(dir);
                      assertThat(VectorJudge.rulesBroken(v)).isEqualTo(v.rules());
                      assertThat(VectorJudge.judge(v)).isEqualTo(v.first());
                    }));
  }

  /** Reads a vector the way the kit's README tells a consumer in another language to. */
  static Vector read(Path dir) throws IOException {
    String json = Files.readString(dir.resolve("vector.json"));
    Matcher list = RULES.matcher(json);
    Set<ProtocolRule> rules = EnumSet.noneOf(ProtocolRule.class);
    if (list.find()) {
      Matcher rule = RULE.matcher(list.group(1));
      while (rule.find()) {
        rules.add(ProtocolRule.valueOf(rule.group(1)));
      }
    }
    Matcher first = FIRST.matcher(json);
    ProtocolRule firstRule = first.find() ? ProtocolRule.valueOf(first.group(1)) : null;
    List<Vector.Part> parts = new ArrayList<>();
    Matcher file = FILE.matcher(json);
    while (file.find()) {
      parts.add(
          new Vector.Part(
              MessageKind.fromWireName(file.group(2)),
              Files.readAllBytes(dir.resolve(file.group(1)))));
    }
    return new Vector(dir.getFileName().toString(), rules, firstRule, "", parts);
  }

  private static void write(List<Vector> vectors) throws IOException {
    if (Files.exists(KIT)) {
      try (Stream<Path> walk = Files.walk(KIT)) {
        walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    for (Vector v : vectors) {
      Path dir = Files.createDirectories(KIT.resolve(v.name()));
      StringBuilder json = new StringBuilder("{\n  \"name\": \"").append(v.name()).append("\",\n");
      json.append("  \"expect\": \"").append(v.valid() ? "accept" : "reject").append("\",\n");
      json.append("  \"rules\": [")
          .append(String.join(", ", v.rules().stream().map(r -> "\"" + r.name() + "\"").toList()))
          .append("],\n");
      json.append("  \"first_rule\": ")
          .append(v.first() == null ? "null" : "\"" + v.first().name() + "\"")
          .append(",\n");
      json.append("  \"description\": \"")
          .append(v.description().replace("\"", "\\\""))
          .append("\",\n");
      json.append("  \"messages\": [\n");
      for (int i = 0; i < v.messages().size(); i++) {
        Vector.Part p = v.messages().get(i);
        String file = String.format("%02d-%s.bin", i, p.kind().wireName());
        Files.write(dir.resolve(file), p.bytes());
        json.append("    {\"file\": \"")
            .append(file)
            .append("\", \"kind\": \"")
            .append(p.kind().wireName())
            .append("\", \"bytes\": ")
            .append(p.bytes().length)
            .append(", \"xxh3_64_of_file\": \"")
            .append(Checksums.hex(Checksums.xxh3(p.bytes())))
            .append("\"}")
            .append(i + 1 < v.messages().size() ? ",\n" : "\n");
        if (v.valid()) {
          Files.writeString(
              dir.resolve(file.replace(".bin", ".json")),
              JsonFormat.printer().print(TrellaraCodec.decode(p.kind(), p.bytes())) + "\n",
              StandardCharsets.UTF_8);
        }
      }
      json.append("  ]\n}\n");
      Files.writeString(dir.resolve("vector.json"), json.toString(), StandardCharsets.UTF_8);
    }
    Files.write(KIT.resolve(INDEX), names(vectors), StandardCharsets.UTF_8);
  }

  /**
   * The vector names, sorted: what a reader of the kit's jar, which cannot list a directory, finds
   * them by.
   */
  private static List<String> names(List<Vector> vectors) {
    return vectors.stream().map(Vector::name).sorted().toList();
  }
}
