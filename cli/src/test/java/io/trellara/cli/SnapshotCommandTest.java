package io.trellara.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code trellara snapshot}: the signal row its options make, and the usage errors. */
class SnapshotCommandTest {

  private static SnapshotCommand.Action tables(String... t) {
    SnapshotCommand.Action a = new SnapshotCommand.Action();
    a.tables = List.of(t);
    return a;
  }

  @Test
  void tablesBecomeOneLineEachAndAWhereFollowsTheOneTable() {
    assertThat(SnapshotCommand.row(tables("public.orders", " shop.\"Line Items\" "), null))
        .isEqualTo(new SnapshotCommand.SignalRow("snapshot", "public.orders\nshop.\"Line Items\""));
    assertThat(SnapshotCommand.row(tables("public.orders"), " region = 'eu' "))
        .isEqualTo(new SnapshotCommand.SignalRow("snapshot", "public.orders WHERE region = 'eu'"));
  }

  @Test
  void stopPauseAndResumeCarryNoData() {
    SnapshotCommand.Action stop = new SnapshotCommand.Action();
    stop.stop = true;
    assertThat(SnapshotCommand.row(stop, null))
        .isEqualTo(new SnapshotCommand.SignalRow("stop-snapshot", null));
    SnapshotCommand.Action pause = new SnapshotCommand.Action();
    pause.pause = true;
    assertThat(SnapshotCommand.row(pause, null).type()).isEqualTo("pause-snapshot");
    SnapshotCommand.Action resume = new SnapshotCommand.Action();
    resume.resume = true;
    assertThat(SnapshotCommand.row(resume, null).type()).isEqualTo("resume-snapshot");
  }

  @Test
  void wrongCombinationsAreUsageErrors() {
    assertThatThrownBy(() -> SnapshotCommand.row(tables("a.b", "c.d"), "x > 1"))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("exactly one --table");
    assertThatThrownBy(() -> SnapshotCommand.row(tables("a.b; DROP TABLE c"), null))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("expected schema.table");
    assertThatThrownBy(() -> SnapshotCommand.signalTable("src", ""))
        .hasMessageContaining("connector src has no signal.table");
    assertThatThrownBy(() -> SnapshotCommand.signalTable("src", "x; y"))
        .hasMessageContaining("is not schema.table");
    assertThat(SnapshotCommand.signalTable("src", " public.signals ")).isEqualTo("public.signals");
    StringWriter err = new StringWriter();
    int status =
        TrellaraCli.run(
            new PrintWriter(new StringWriter()),
            new PrintWriter(err),
            "snapshot",
            "--connect-url",
            "http://127.0.0.1:1",
            "--connector",
            "src",
            "--source-jdbc",
            "jdbc:postgresql://127.0.0.1:1/db");
    assertThat(status).as("no --table, --stop, --pause or --resume").isEqualTo(2);
  }
}
