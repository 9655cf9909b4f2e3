package io.trellara.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.trellara.plugin.crash.BoundaryMode;
import io.trellara.plugin.crash.CrashSequences;
import io.trellara.plugin.crash.Outcome;
import io.trellara.plugin.crash.ReportedSequences;
import io.trellara.plugin.crash.SequencePlan;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.KafkaBroker;
import io.trellara.testplatform.TestServers;
import io.trellara.testplatform.TrellaraStack;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The seeded crash-sequence suite ({@link CrashSequences}): faults drawn from a seed, interleaved
 * with a transfer workload, large transactions and DDL, each sequence checked for convergence, 0
 * lost, 0 twice, 0 partial reads, no stall and no reader blocked.
 *
 * <ul>
 *   <li>{@link #ciSequence}: the short sequences {@code ./mvnw -B verify} runs: three drawn from
 *       seeds (small tables, 3 faults each, one per boundary mode) and the reported sequence 1b;
 *   <li>{@link #replay}: one sequence, from {@code -Dtrellara.crash.sequence=<text or name>} (a
 *       failure prints its text) or {@code -Dtrellara.crash.seed=N -Dtrellara.crash.faults=N
 *       [-Dtrellara.crash.mode=strict|strict_chunked|partitioned] [-Dtrellara.crash.size=ci|small|
 *       big|long]};
 *   <li>{@link #reported}: the sequences users reported ({@code -Dtrellara.crash.reported=true});
 *   <li>{@link #longRun}: the benchmark, {@code -Dtrellara.crash.minutes=30} over seeds from {@code
 *       -Dtrellara.crash.seed} (default 1000) in every mode of {@code -Dtrellara.crash.modes},
 *       writing a summary table to target/crash-sequences/summary.md.
 * </ul>
 */
@EitherPlatform
class CrashSequenceIT {
  /** seed, faults, mode: the CI sequences (size ci). */
  private static final String[] CI = {"1:3:strict", "4:3:strict_chunked", "3:3:partitioned"};

  private static KafkaBroker broker;
  private static CrashSequences harness;
  private static Path reports;

  @BeforeAll
  static void startBroker() {
    TrellaraStack stack = TrellaraStack.get();
    broker = TestServers.current().kafka(KafkaBroker.builder()).start();
    Path pluginPath = PluginWorker.unpackArchive("it-plugin-path-crash");
    reports = pluginPath.getParent().resolve("crash-sequences");
    harness =
        new CrashSequences(
            stack,
            broker,
            pluginPath,
            reports,
            Boolean.parseBoolean(
                System.getProperty(
                    "trellara.crash.continue",
                    Boolean.toString(System.getProperty("trellara.crash.minutes") != null))));
  }

  @AfterAll
  static void stopBroker() {
    if (broker != null) {
      broker.close();
    }
  }

  /** The reported sequence that fits the CI budget: the sink's hang on a replacing snapshot. */
  private static final String CI_REPORTED = "reported-1b";

  static Stream<String> ci() {
    Stream<String> drawn =
        Arrays.stream(CI)
            .map(
                s -> {
                  String[] p = s.split(":");
                  return SequencePlan.draw(
                          Long.parseLong(p[0]),
                          Integer.parseInt(p[1]),
                          BoundaryMode.of(p[2]),
                          SequencePlan.Size.CI)
                      .toString();
                });
    return Stream.concat(drawn, Stream.of(ReportedSequences.named(CI_REPORTED).toString()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("ci")
  void ciSequence(String plan) {
    check(harness.run(SequencePlan.parse(plan)));
  }

  @Test
  void replay() {
    String sequence = System.getProperty("trellara.crash.sequence");
    String seed = System.getProperty("trellara.crash.seed");
    assumeTrue(
        sequence != null || seed != null,
        "-Dtrellara.crash.sequence=... or -Dtrellara.crash.seed=... replays one sequence");
    SequencePlan plan =
        sequence != null
            ? ReportedSequences.named(sequence)
            : SequencePlan.draw(
                Long.parseLong(seed),
                Integer.getInteger("trellara.crash.faults", 4),
                mode(System.getProperty("trellara.crash.mode")),
                SequencePlan.Size.of(System.getProperty("trellara.crash.size", "ci")));
    check(harness.run(plan));
  }

  static Stream<String> reportedNames() {
    return ReportedSequences.PLANS.keySet().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("reportedNames")
  void reported(String name) {
    assumeTrue(
        Boolean.getBoolean("trellara.crash.reported"),
        "-Dtrellara.crash.reported=true runs the reported sequences");
    check(harness.run(ReportedSequences.named(name)));
  }

  @Test
  void longRun() throws Exception {
    String minutes = System.getProperty("trellara.crash.minutes");
    assumeTrue(minutes != null, "-Dtrellara.crash.minutes=30 runs the long sequence benchmark");
    List<BoundaryMode> modes =
        Arrays.stream(
                System.getProperty("trellara.crash.modes", "strict,strict_chunked,partitioned")
                    .split(","))
            .map(BoundaryMode::of)
            .toList();
    List<Outcome> outcomes =
        harness.longRun(
            Double.parseDouble(minutes),
            Long.getLong("trellara.crash.seed", 1000),
            modes,
            SequencePlan.Size.of(System.getProperty("trellara.crash.size", "long")),
            Integer.getInteger("trellara.crash.faults.min", 4),
            Integer.getInteger("trellara.crash.faults.max", 8));
    String summary = CrashSequences.summary(outcomes);
    StringBuilder failures = new StringBuilder();
    for (Outcome o : outcomes) {
      if (!o.passed()) {
        failures
            .append("\n- ")
            .append(o.plan())
            .append("\n  ")
            .append(String.join("\n  ", o.violations()));
      }
    }
    Files.createDirectories(reports);
    Files.writeString(
        reports.resolve("summary.md"),
        summary + "\nFailing sequences:\n" + failures,
        StandardCharsets.UTF_8);
    System.out.println(summary);
    assertThat(outcomes.stream().filter(o -> !o.passed()).count())
        .as("failing sequences (summary in %s):%s", reports.resolve("summary.md"), failures)
        .isZero();
  }

  private static BoundaryMode mode(String text) {
    return text == null ? null : BoundaryMode.of(text);
  }

  private static void check(Outcome outcome) {
    assertThat(outcome.passed()).as("%s", outcome.report()).isTrue();
  }
}
