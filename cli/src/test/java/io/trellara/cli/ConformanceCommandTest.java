package io.trellara.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code trellara conformance}: the runner scores the reference validator, run through this tool as
 * any third party's validator is, at 100 %; the kit's example validator at what it really scores;
 * and a mistyped command is an error, not a help page.
 */
class ConformanceCommandTest {
  private static final Path KIT = Path.of("../conformance");
  private static final String JAVA =
      Path.of(System.getProperty("java.home"), "bin", "java").toString();
  private static final String SELF =
      "'"
          + JAVA
          + "' -cp '"
          + System.getProperty("java.class.path")
          + "' "
          + TrellaraCli.class.getName();

  private record Result(int status, String out, String err) {}

  private static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = TrellaraCli.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Result(status, out.toString(), err.toString());
  }

  private static int vectors() throws Exception {
    return (int)
        Files.readAllLines(KIT.resolve("vectors/index.txt")).stream()
            .filter(l -> !l.isBlank())
            .count();
  }

  @Test
  void anUnknownCommandIsAUsageErrorEvenWithHelp() {
    Result r = run("conformanse", "run", "--help");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("unknown command or option: conformanse");
  }

  @Test
  void anUnknownOptionIsAUsageError() {
    Result r = run("conformance", "run", "--validatr", "x");
    assertThat(r.status()).isEqualTo(2);
    assertThat(run("verify", "--bogus", "x").status()).isEqualTo(2);
  }

  @Test
  void knownHelpStillExitsZero() {
    Result r = run("conformance", "run", "--help");
    assertThat(r.status()).isZero();
    assertThat(r.out()).contains("--validator", "--stream");
  }

  @Test
  void referenceValidatorCollectingEveryRuleScoresEveryRuleSetAndFirstRule() throws Exception {
    int n = vectors();
    Result r =
        run(
            "conformance",
            "run",
            "--kit",
            KIT.toString(),
            "--stream",
            "--validator",
            SELF + " conformance validate --all");
    assertThat(r.out())
        .contains(
            "summary: "
                + n
                + " vectors, "
                + n
                + " passed (100.0 %), 0 failed; verdicts "
                + n
                + "/"
                + n
                + ", first rules "
                + n
                + "/"
                + n
                + ", rule sets "
                + n
                + "/"
                + n);
    assertThat(r.status()).isZero();
  }

  @Test
  void referenceValidatorFailingFastPassesEveryVectorByItsFirstRule() throws Exception {
    int n = vectors();
    Result r =
        run(
            "conformance",
            "run",
            "--kit",
            KIT.toString(),
            "--stream",
            "--validator",
            SELF + " conformance validate");
    assertThat(r.out()).contains(n + " passed (100.0 %)", "first rules " + n + "/" + n);
    assertThat(r.status()).isZero();
  }

  /** The row identity suite: the reference encoder, through this tool, gets every byte right. */
  @Test
  void referenceEncoderScoresTheIdentitySuite() throws Exception {
    long n =
        Files.readAllLines(KIT.resolve("identity/index.txt")).stream()
            .filter(l -> !l.isBlank())
            .count();
    Result r =
        run(
            "conformance",
            "run",
            "--kit",
            KIT.toString(),
            "--suite",
            "identity",
            "--stream",
            "--validator",
            SELF + " conformance validate");
    assertThat(r.out()).contains(n + " passed (100.0 %)");
    assertThat(r.status()).isZero();
    assertThat(ConformanceCommand.identity("SCAN_KEY\tint4\t42\n"))
        .isEqualTo("{\"verdict\": \"accept\", \"identity\": \"0201000000010301800000" + "2aff\"}");
  }

  /** One run per vector, the paths as arguments: the same verdicts. */
  @Test
  void referenceValidatorOneRunPerVector() throws Exception {
    Path small = Files.createTempDirectory("kit");
    Files.createDirectories(small.resolve("vectors"));
    List<String> names =
        List.of("valid-envelope", "barrier-missing-chunk", "identity-rules-rule-by-rule");
    for (String name : names) {
      Path to = Files.createDirectories(small.resolve("vectors").resolve(name));
      try (var files = Files.list(KIT.resolve("vectors").resolve(name))) {
        for (Path f : files.toList()) {
          Files.copy(f, to.resolve(f.getFileName()));
        }
      }
    }
    Files.write(small.resolve("vectors/index.txt"), names);
    Result r =
        run(
            "conformance",
            "run",
            "--kit",
            small.toString(),
            "--validator",
            SELF + " conformance validate --all");
    assertThat(r.out()).contains("PASS identity-rules-rule-by-rule", "3 passed (100.0 %)");
    assertThat(r.status()).isZero();
  }

  @Test
  void theExampleValidatorGetsItsRealScore() throws Exception {
    Result r =
        run(
            "conformance",
            "run",
            "--kit",
            KIT.toString(),
            "--stream",
            "--validator",
            "'" + JAVA + "' " + KIT.resolve("examples/ExampleValidator.java"));
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.out())
        .contains(
            "PASS valid-envelope\n",
            "PASS malformed-truncated\n",
            "PASS unknown-protocol-version\n",
            "FAIL checksum-envelope: verdict accept, expected reject [CHECKSUM_MISMATCH]")
        .containsPattern("summary: " + vectors() + " vectors, \\d+ passed");
    System.out.println(r.out().lines().filter(l -> l.startsWith("summary")).findFirst().orElse(""));
  }

  /** The runner as the kit archive ships it: one source file, a JDK alone. */
  @Test
  void theShippedRunnerRunsOnItsOwn() throws Exception {
    Process p =
        new ProcessBuilder(
                JAVA,
                "src/main/java/io/trellara/cli/KitRunner.java",
                "--kit",
                KIT.toString(),
                "--stream",
                "--validator",
                JAVA,
                KIT.resolve("examples/ExampleValidator.java").toString())
            .redirectErrorStream(true)
            .start();
    String out =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(out).isEqualTo(1);
    assertThat(out).contains("PASS valid-envelope", "summary: " + vectors() + " vectors");
  }

  @Test
  void theBundledKitIsTheCommittedOne() throws Exception {
    Path bundled = ConformanceCommand.bundledKit();
    assertThat(Files.readAllLines(bundled.resolve("vectors/index.txt")))
        .isEqualTo(Files.readAllLines(KIT.resolve("vectors/index.txt")));
    assertThat(bundled.resolve("identity/identity-int4-42/00-identity.tsv")).exists();
    assertThat(bundled.resolve("vectors/valid-envelope/00-envelope.bin"))
        .hasSameBinaryContentAs(KIT.resolve("vectors/valid-envelope/00-envelope.bin"));
  }
}
