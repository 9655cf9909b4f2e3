package io.trellara.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.codec.Checksums;
import io.trellara.protocol.conformance.ConformanceVectors;
import io.trellara.protocol.conformance.Vector;
import io.trellara.protocol.sample.SampleTransactions;
import io.trellara.protocol.validation.ProtocolRule;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * docs/protocol.md is the specification a third party implements from: every rule is in its tables
 * with a condition, every worked example reproduces from the bytes it prints, and every vector it
 * (or docs/conformance.md) names exists.
 */
class ProtocolDocumentTest {
  private static final Path DOC =
      Path.of(System.getProperty("protocol.doc", "../docs/protocol.md"));

  /** A row of a rule table: | `RULE` | applies to | condition | field |. */
  private static final Pattern ROW =
      Pattern.compile("^\\| `([A-Z_]+)` \\|([^|]+)\\|(.+)\\|([^|]+)\\|$");

  private static final Pattern XXH3 =
      Pattern.compile("`xxh3_64\\(\"([^\"]*)\"\\) = ([0-9a-f]{16})`");
  private static final Path KIT_DOC = DOC.resolveSibling("conformance.md");

  /** How the documents name a vector: a backticked word of three or more hyphenated parts. */
  private static final Pattern VECTOR_NAME =
      Pattern.compile("`([a-z][a-z0-9]*(?:-[a-z0-9]+){2,})`");

  private static String doc() throws IOException {
    return Files.readString(DOC, StandardCharsets.UTF_8);
  }

  /**
   * A rule's rows: what it applies to and its condition, which are long enough to be a sentence.
   */
  @Test
  void everyRuleIsInARuleTableWithItsCondition() throws IOException {
    Map<String, List<String[]>> rows = new HashMap<>();
    for (String line : doc().lines().toList()) {
      Matcher m = ROW.matcher(line);
      if (m.matches()) {
        rows.computeIfAbsent(m.group(1), k -> new ArrayList<>())
            .add(new String[] {m.group(2).trim(), m.group(3).trim(), m.group(4).trim()});
      }
    }
    for (ProtocolRule rule : ProtocolRule.values()) {
      assertThat(rows).as(rule.name()).containsKey(rule.name());
      for (String[] row : rows.get(rule.name())) {
        assertThat(row[0]).as(rule + " applies to").isNotEmpty();
        assertThat(row[1].length()).as(rule + " condition: " + row[1]).isGreaterThan(10);
        assertThat(row[2]).as(rule + " field").isNotEmpty();
      }
    }
    Set<String> known =
        EnumSet.allOf(ProtocolRule.class).stream().map(Enum::name).collect(Collectors.toSet());
    assertThat(rows.keySet()).as("identifiers in the tables that are no rule").isSubsetOf(known);
  }

  @Test
  void everyRuleHasAVectorBreakingIt() {
    Set<ProtocolRule> covered = EnumSet.noneOf(ProtocolRule.class);
    ConformanceVectors.all().forEach(v -> covered.addAll(v.rules()));
    assertThat(covered).containsExactlyInAnyOrder(ProtocolRule.values());
  }

  /**
   * Each worked example's three lines, as a reader in another language would use them: the bytes
   * are the UTF-8 of the text, their xxh3_64 is the fingerprint, and the implementation describes
   * the schema version the same.
   */
  @Test
  void schemaFingerprintExamplesReproduceFromTheDocumentedBytes() throws IOException {
    List<String[]> examples = new ArrayList<>();
    String text = null;
    String bytes = null;
    for (String line : doc().lines().map(String::trim).toList()) {
      if (line.startsWith("text:")) {
        text = line.substring(5).trim();
      } else if (line.startsWith("bytes:")) {
        bytes = line.substring(6).trim();
      } else if (line.startsWith("fingerprint:")) {
        examples.add(new String[] {text, bytes, line.substring(12).trim()});
      }
    }
    assertThat(examples).hasSize(2);
    for (String[] e : examples) {
      byte[] decoded = HexFormat.of().parseHex(e[1]);
      assertThat(new String(decoded, StandardCharsets.UTF_8)).isEqualTo(e[0]);
      assertThat(Checksums.hex(Checksums.xxh3(decoded))).as(e[0]).isEqualTo(e[2]);
    }
    assertThat(SchemaFingerprint.canonicalDescription(SchemaFingerprintTest.ORDERS))
        .isEqualTo(HexFormat.of().parseHex(examples.get(0)[1]));
    assertThat(SchemaFingerprint.canonicalDescription(SampleTransactions.ORDERS_SCHEMA))
        .isEqualTo(HexFormat.of().parseHex(examples.get(1)[1]));
    assertThat(SampleTransactions.ORDERS_SCHEMA.getFingerprint()).isEqualTo(examples.get(1)[2]);
  }

  @Test
  void hashReferenceValuesAreTheImplementations() throws IOException {
    Matcher m = XXH3.matcher(doc());
    int found = 0;
    while (m.find()) {
      found++;
      assertThat(Checksums.hex(Checksums.xxh3(m.group(1).getBytes(StandardCharsets.UTF_8))))
          .as(m.group(1))
          .isEqualTo(m.group(2));
    }
    assertThat(found).isEqualTo(2);
  }

  @Test
  void everyVectorTheDocumentsNameExists() throws IOException {
    Set<String> names =
        ConformanceVectors.all().stream().map(Vector::name).collect(Collectors.toSet());
    Matcher m = VECTOR_NAME.matcher(doc() + Files.readString(KIT_DOC, StandardCharsets.UTF_8));
    int found = 0;
    while (m.find()) {
      if (m.group(1).startsWith("trellara-")) {
        continue; // a protocol label (the record MAC's domain label), not a vector
      }
      found++;
      assertThat(names).contains(m.group(1));
    }
    assertThat(found).isGreaterThan(40);
  }
}
