package io.trellara.quickstart;

import java.io.PrintStream;
import java.nio.file.Path;

/** Command line options of the quickstart ({@code --flag value}; no dependency needed). */
final class Options {
  String sourceJdbc;
  String sourceUser = "postgres";
  String sourcePassword = "";
  String targetJdbc;
  String targetUser = "postgres";
  String targetPassword = "";
  String bootstrapServers;
  int rows = 100_000;
  int orders = 200;
  int restPort = 8083;
  int verifyTimeoutSeconds = 300;
  Path configDir = Path.of("config-examples");
  boolean exitAfterVerify;
  boolean help;

  private static final java.util.Set<String> VALUE_FLAGS =
      java.util.Set.of(
          "--source-jdbc",
          "--source-user",
          "--source-password",
          "--target-jdbc",
          "--target-user",
          "--target-password",
          "--bootstrap-servers",
          "--rows",
          "--orders",
          "--rest-port",
          "--verify-timeout",
          "--config-dir");

  static Options parse(String... args) {
    Options o = new Options();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      String flag = arg;
      String inline = null;
      int eq = arg.indexOf('=');
      if (arg.startsWith("--") && eq > 0) {
        flag = arg.substring(0, eq);
        inline = arg.substring(eq + 1);
      }
      switch (flag) {
        case "--help", "-h" -> o.help = true;
        case "--exit-after-verify" -> o.exitAfterVerify = true;
        default -> {
          if (!VALUE_FLAGS.contains(flag)) {
            throw new IllegalArgumentException("unknown option " + arg + " (see --help)");
          }
          String value = inline;
          if (value == null) {
            if (i + 1 >= args.length) {
              throw new IllegalArgumentException(flag + " needs a value (see --help)");
            }
            value = args[++i];
          }
          o.set(flag, value);
        }
      }
    }
    if (o.rows < 1 || o.orders < 1) {
      throw new IllegalArgumentException("--rows and --orders must be at least 1");
    }
    return o;
  }

  private void set(String flag, String value) {
    switch (flag) {
      case "--source-jdbc" -> sourceJdbc = value;
      case "--source-user" -> sourceUser = value;
      case "--source-password" -> sourcePassword = value;
      case "--target-jdbc" -> targetJdbc = value;
      case "--target-user" -> targetUser = value;
      case "--target-password" -> targetPassword = value;
      case "--bootstrap-servers" -> bootstrapServers = value;
      case "--rows" -> rows = integer(flag, value);
      case "--orders" -> orders = integer(flag, value);
      case "--rest-port" -> restPort = integer(flag, value);
      case "--verify-timeout" -> verifyTimeoutSeconds = integer(flag, value);
      case "--config-dir" -> configDir = Path.of(value);
      default -> throw new IllegalArgumentException("unknown option " + flag + " (see --help)");
    }
  }

  private static int integer(String flag, String value) {
    try {
      return Integer.parseInt(value.replace("_", "").replace(",", ""));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(flag + " expects a number, got '" + value + "'");
    }
  }

  boolean embeddedSource() {
    return sourceJdbc == null;
  }

  boolean embeddedTarget() {
    return targetJdbc == null;
  }

  boolean embeddedKafka() {
    return bootstrapServers == null;
  }

  static void printHelp(PrintStream out) {
    out.println(
        """
                Trellara quickstart: PostgreSQL -> Kafka Connect -> PostgreSQL, one source transaction = one target
                transaction. Starts everything on this machine (two PostgreSQL 17 servers, a Kafka broker, a Connect
                worker with REST), deploys both connectors, runs a demo workload, verifies that source and target
                are equal, then keeps running until Ctrl-C.

                Usage: ./quickstart.sh [options]

                  --rows N                  lines of the one large transaction (default 100000)
                  --orders N                order transactions in the demo workload (default 200)
                  --exit-after-verify       exit after the verification: 0 on PASS, 1 on FAIL (no Ctrl-C wait)
                  --rest-port N             Connect REST port (default 8083; a free port if 8083 is taken)
                  --verify-timeout SECONDS  how long to wait for the target to catch up (default 300)
                  --config-dir DIR          connector JSON examples to start from (default config-examples/;
                                            built-in configuration when absent)

                  Existing servers instead of the embedded ones (the demo uses schema trellara_demo, dropped and
                  recreated on both sides; the source needs wal_level=logical, and a superuser installs the DDL trigger):
                  --source-jdbc URL         e.g. jdbc:postgresql://localhost:5432/shop
                  --source-user USER        (default postgres)    --source-password PASSWORD
                  --target-jdbc URL         e.g. jdbc:postgresql://localhost:5433/shop
                  --target-user USER        (default postgres)    --target-password PASSWORD
                  --bootstrap-servers HOSTS an existing Kafka (the Connect worker still runs embedded)

                  --help                    this text
                """);
  }
}
