package io.trellara.source.pgoutput;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.source.pgoutput.PgOutputCaptureScenarios.Scenario;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Runs the fixture capture scenarios against a live embedded PostgreSQL 17 and parses everything
 * the server sends, end to end. Checks the same expectations as the fixture tests (none of which
 * compare LSNs, xids or timestamps with captured values), and that non-streamed scenarios still
 * produce the message type sequence of their fixture, so stale fixtures show up here.
 */
class PgOutputLiveCaptureIT {

  private static PgOutputCaptureScenarios scenarios;
  private static Map<Scenario, List<byte[]>> captured;

  @BeforeAll
  static void captureAll() throws Exception {
    scenarios = PgOutputCaptureScenarios.start();
    captured = scenarios.runAll();
  }

  @AfterAll
  static void stop() throws Exception {
    if (scenarios != null) {
      scenarios.close();
    }
  }

  @ParameterizedTest
  @EnumSource(Scenario.class)
  void parsesEverythingTheLiveServerSends(Scenario scenario) {
    List<byte[]> live = captured.get(scenario);
    List<PgOutputMessage> parsed = PgOutputFixtures.parseAll(live, scenario.protocolVersion);
    PgOutputScenarioExpectations.verify(scenario, parsed);
  }

  @ParameterizedTest
  @EnumSource(value = Scenario.class, names = "STREAMED_PROTO2", mode = EnumSource.Mode.EXCLUDE)
  void nonStreamedScenariosMatchTheTypeSequenceOfTheirFixture(Scenario scenario) {
    assertThat(PgOutputFixtures.typeSequence(captured.get(scenario)))
        .isEqualTo(PgOutputFixtures.typeSequence(PgOutputFixtures.load(scenario.fileName)));
  }
}
