package io.trellara.quickstart;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The quickstart end to end, in this JVM: embedded stack, connectors over REST, workload, verification. */
class QuickstartIT {

    @Test
    void demoRunsAndVerifiesEqualTables() throws Exception {
        long started = System.nanoTime();
        int exitCode = Quickstart.runAndExit("--exit-after-verify", "--rows", "5000", "--orders", "40",
                "--rest-port", "0", "--verify-timeout", "90",
                "--config-dir", "../config-examples"); // the JSON users POST, as quickstart.sh uses it
        assertThat(exitCode).as("quickstart exit code (0 = PASS)").isZero();
        System.out.printf(java.util.Locale.ROOT, "QuickstartIT: %.1f s%n", (System.nanoTime() - started) / 1e9);
    }
}
