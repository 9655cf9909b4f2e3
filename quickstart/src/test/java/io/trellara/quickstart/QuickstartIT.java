package io.trellara.quickstart;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The quickstart end to end, in this JVM: embedded stack, connectors over REST, workload,
 * verification.
 */
class QuickstartIT {

  @Test
  void demoRunsAndVerifiesEqualTables() throws Exception {
    long started = System.nanoTime();
    ByteArrayOutputStream report = new ByteArrayOutputStream();
    PrintStream both = new PrintStream(new Tee(System.out, report), true, StandardCharsets.UTF_8);
    Options options =
        Options.parse(
            "--exit-after-verify",
            "--rows",
            "5000",
            "--orders",
            "40",
            "--rest-port",
            "0",
            "--verify-timeout",
            "90",
            "--config-dir",
            "../config-examples"); // the JSON users POST, as quickstart.sh uses it
    Logging.prepare();
    int exitCode;
    try (Quickstart quickstart = new Quickstart(options, both)) {
      exitCode = quickstart.run();
    }
    // a failure carries the console report, so a CI log that shows only the assertion still says
    // what failed
    assertThat(exitCode)
        .withFailMessage(
            "quickstart exit code %d (0 = PASS); its report:%n%s",
            exitCode, report.toString(StandardCharsets.UTF_8))
        .isZero();
    System.out.printf(
        java.util.Locale.ROOT, "QuickstartIT: %.1f s%n", (System.nanoTime() - started) / 1e9);
  }

  /** Writes to the console and to the buffer the assertion reports. */
  private static final class Tee extends OutputStream {
    private final OutputStream a;
    private final OutputStream b;

    Tee(OutputStream a, OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public void write(int c) throws java.io.IOException {
      a.write(c);
      b.write(c);
    }

    @Override
    public void write(byte[] bytes, int off, int len) throws java.io.IOException {
      a.write(bytes, off, len);
      b.write(bytes, off, len);
    }
  }
}
