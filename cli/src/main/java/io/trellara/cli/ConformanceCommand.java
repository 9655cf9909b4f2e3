package io.trellara.cli;

import com.google.protobuf.Message;
import io.trellara.identity.RowIdentityException;
import io.trellara.identity.RowIdentityText;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.protocol.validation.Violations;
import io.trellara.protocol.verify.TransactionVerifier;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code trellara conformance run|validate}: the conformance kit's runner against any validator,
 * and the reference validator speaking the runner's protocol (docs/conformance.md).
 */
@Command(
    name = "conformance",
    description = "Run the conformance kit against a validator; the reference validator itself.",
    subcommands = {ConformanceCommand.Run.class, ConformanceCommand.Validate.class})
final class ConformanceCommand {
  private static final String KIT_ROOT = "trellara/conformance/v1/";

  @Command(
      name = "run",
      description =
          "Run every vector of the kit against CMD and print a scored report: per vector PASS or"
              + " FAIL with the differences, and a summary. Exit 0 when every vector passes.")
  static final class Run implements Callable<Integer> {
    @Option(
        names = "--validator",
        required = true,
        paramLabel = "CMD",
        description =
            "the validator command; each vector's message paths are appended (or, with --stream,"
                + " written to its standard input, one vector a line)")
    String validator;

    @Option(
        names = "--kit",
        paramLabel = "DIR",
        description = "an unpacked kit (holding vectors/); default: the kit this tool carries")
    Path kit;

    @Option(names = "--stream", description = "one validator process for the whole kit")
    boolean stream;

    @Option(
        names = "--suite",
        defaultValue = "protocol",
        description = "protocol (default) or identity")
    String suite;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
      if (!suite.equals("protocol") && !suite.equals("identity")) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--suite is protocol or identity, not " + suite);
      }
      Path dir = kit != null ? kit : bundledKit();
      PrintWriter out = spec.commandLine().getOut();
      return new KitRunner(dir, split(validator), stream, suite, out).run().exitCode();
    }
  }

  @Command(
      name = "validate",
      description =
          "The reference validator in the kit runner's protocol: judge the messages FILE... (one"
              + " vector, kinds from the names NN-<kind>.bin) and print one JSON verdict line;"
              + " without FILE, one vector a line on standard input (paths separated by tabs).")
  static final class Validate implements Callable<Integer> {
    @Parameters(paramLabel = "FILE", arity = "0..*")
    List<Path> files = new ArrayList<>();

    @Option(
        names = "--all",
        description = "name every rule broken (default: stop at the first, as the sink does)")
    boolean all;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
      PrintWriter out = spec.commandLine().getOut();
      if (!files.isEmpty()) {
        out.println(verdict(files, all));
        return 0;
      }
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        List<Path> paths = new ArrayList<>();
        for (String p : line.split("\t")) {
          if (!p.isEmpty()) {
            paths.add(Path.of(p));
          }
        }
        out.println(verdict(paths, all));
        out.flush();
      }
      return 0;
    }
  }

  /** The kind a kit file's name gives: {@code 03-manifest.bin} is a manifest. */
  static MessageKind kindOf(Path file) {
    String name = file.getFileName().toString();
    int dash = name.indexOf('-');
    int dot = name.lastIndexOf('.');
    return MessageKind.fromWireName(name.substring(dash + 1, dot > dash ? dot : name.length()));
  }

  /** One vector judged: each message on its own in order, then the barrier. */
  static String verdict(List<Path> files, boolean all) throws IOException {
    if (files.size() == 1 && files.get(0).getFileName().toString().endsWith("-identity.tsv")) {
      return identity(Files.readString(files.get(0), StandardCharsets.UTF_8));
    }
    Set<String> rules = new LinkedHashSet<>();
    List<Message> passed = new ArrayList<>();
    boolean refused = false;
    for (Path f : files) {
      Violations v = all ? Violations.collecting() : Violations.FAIL_FAST;
      try {
        Message m = TrellaraCodec.decode(kindOf(f), Files.readAllBytes(f), v);
        v.all().forEach(x -> rules.add(x.rule().name()));
        refused |= !v.isEmpty();
        passed.add(m);
      } catch (ProtocolViolationException e) {
        rules.add(e.rule().name());
        refused = true;
      }
      if (refused && !all) {
        break;
      }
    }
    if (!refused) {
      Violations v = all ? Violations.collecting() : Violations.FAIL_FAST;
      try {
        TransactionVerifier.judgeBarrier(passed, v);
        v.all().forEach(x -> rules.add(x.rule().name()));
      } catch (ProtocolViolationException e) {
        rules.add(e.rule().name());
      }
    }
    if (rules.isEmpty()) {
      return "{\"verdict\": \"accept\"}";
    }
    List<String> quoted = new ArrayList<>();
    rules.forEach(r -> quoted.add(Json.quote(r)));
    return "{\"verdict\": \"reject\", \"rules\": [" + String.join(", ", quoted) + "]}";
  }

  /**
   * A row identity vector's input, {@code DOMAIN TAB type TAB value ...} ({@code \\N} SQL NULL;
   * {@code \\t}, {@code \\n}, {@code \\\\} escapes), encoded: its identity, or a refusal.
   */
  static String identity(String line) {
    String[] cols = line.stripTrailing().split("\t", -1);
    List<String> types = new ArrayList<>();
    List<String> values = new ArrayList<>();
    for (int i = 1; i + 1 < cols.length; i += 2) {
      types.add(cols[i]);
      values.add(unescape(cols[i + 1]));
    }
    try {
      return "{\"verdict\": \"accept\", \"identity\": \""
          + RowIdentityText.encodeHex(RowIdentityText.domain(cols[0]), types, values)
          + "\"}";
    } catch (RowIdentityException e) {
      return "{\"verdict\": \"reject\", \"detail\": " + Json.quote(e.getMessage()) + "}";
    }
  }

  private static String unescape(String v) {
    if (v.equals("\\N")) {
      return null;
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c == '\\' && i + 1 < v.length()) {
        char n = v.charAt(++i);
        sb.append(n == 't' ? '\t' : n == 'n' ? '\n' : n);
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }

  /**
   * The kit this tool carries (the trellara-conformance-kit jar on its classpath), unpacked once
   * into a temporary directory: a validator reads files.
   */
  static Path bundledKit() throws IOException {
    Path dir = Files.createTempDirectory("trellara-kit");
    dir.toFile().deleteOnExit();
    for (String suite : List.of("vectors", "identity")) {
      byte[] index = resource(suite + "/index.txt");
      if (index == null) {
        continue;
      }
      Files.createDirectories(dir.resolve(suite));
      Files.write(dir.resolve(suite).resolve("index.txt"), index);
      for (String name : new String(index, StandardCharsets.UTF_8).lines().toList()) {
        if (name.isBlank()) {
          continue;
        }
        Path vector = Files.createDirectories(dir.resolve(suite).resolve(name));
        byte[] json = resource(suite + "/" + name + "/vector.json");
        Files.write(vector.resolve("vector.json"), json);
        for (String file : files(new String(json, StandardCharsets.UTF_8))) {
          Files.write(vector.resolve(file), resource(suite + "/" + name + "/" + file));
        }
      }
    }
    return dir;
  }

  /** The message file names a vector.json lists. */
  private static List<String> files(String json) {
    List<String> names = new ArrayList<>();
    for (int i = json.indexOf("\"file\": \""); i >= 0; i = json.indexOf("\"file\": \"", i + 1)) {
      int start = i + "\"file\": \"".length();
      names.add(json.substring(start, json.indexOf('"', start)));
    }
    return names;
  }

  private static byte[] resource(String path) throws IOException {
    try (InputStream in =
        ConformanceCommand.class.getClassLoader().getResourceAsStream(KIT_ROOT + path)) {
      return in == null ? null : in.readAllBytes();
    }
  }

  /** Splits a command line into words: blanks separate, single or double quotes group. */
  static List<String> split(String command) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    boolean inWord = false;
    char quote = 0;
    for (char c : command.toCharArray()) {
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          word.append(c);
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
        inWord = true;
      } else if (Character.isWhitespace(c)) {
        if (inWord) {
          words.add(word.toString());
          word.setLength(0);
          inWord = false;
        }
      } else {
        word.append(c);
        inWord = true;
      }
    }
    if (inWord) {
      words.add(word.toString());
    }
    return words;
  }
}
