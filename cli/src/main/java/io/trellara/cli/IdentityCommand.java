package io.trellara.cli;

import io.trellara.identity.RowIdentityText;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code trellara identity encode|decode}: row identity V2 by hand, for debugging routes and keys.
 */
@Command(
    name = "identity",
    description = "Row identity V2: encode typed values to hex, decode hex to typed fields.",
    subcommands = {IdentityCommand.Encode.class, IdentityCommand.Decode.class})
final class IdentityCommand {

  @Command(
      name = "encode",
      description =
          "Encode VALUEs (PostgreSQL text form; \\N for NULL) of the given"
              + " types, e.g. 'identity encode -t int8 -t text 42 hello'.")
  static final class Encode implements Callable<Integer> {
    @Option(
        names = {"-t", "--type"},
        required = true,
        description = "PostgreSQL type of each value, in order")
    List<String> types;

    @Option(
        names = {"-d", "--domain"},
        defaultValue = "scan_key",
        description =
            "scan_key (default), keyless_row, group_key, join_key, set_key, window_key, synthetic")
    String domain;

    @Parameters(paramLabel = "VALUE", arity = "1..*")
    List<String> values;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      if (types.size() != values.size()) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), types.size() + " types for " + values.size() + " values");
      }
      List<String> nullable = new ArrayList<>();
      values.forEach(v -> nullable.add("\\N".equals(v) ? null : v));
      spec.commandLine()
          .getOut()
          .println(RowIdentityText.encodeHex(RowIdentityText.domain(domain), types, nullable));
      return 0;
    }
  }

  @Command(name = "decode", description = "Decode a hex identity to its domain and typed fields.")
  static final class Decode implements Callable<Integer> {
    @Parameters(paramLabel = "HEX")
    String hex;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      spec.commandLine().getOut().println(RowIdentityText.decodeHex(hex).render());
      return 0;
    }
  }
}
