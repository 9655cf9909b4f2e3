package io.trellara.cli;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The conformance kit's runner: runs every vector of a kit directory against any validator command
 * and prints a scored report (docs/conformance.md, "Running the kit against your validator"). Self
 * contained, the JDK alone: the kit archive ships this file, run as {@code java KitRunner.java
 * [--kit DIR] [--stream] [--suite protocol|identity] --validator CMD ARG...}; {@code trellara
 * conformance run} is the same code.
 *
 * <p>The validator protocol: for each vector the runner gives the validator the absolute paths of
 * the vector's message files in stream order (each named {@code NN-<kind>.<ext>}: the file name is
 * the carrier that names the kind), as arguments of one run per vector or, with {@code --stream},
 * as one line on the validator's standard input (paths separated by a tab) in one run for the whole
 * kit; the validator prints one JSON line per vector: {@code {"verdict": "accept"}} or {@code
 * {"verdict": "reject", "rules": ["FIRST_RULE", ...]}}, rules in the order it found them (an
 * identity vector's accept carries {@code "identity": "<hex>"}). Other keys are ignored.
 */
public final class KitRunner {
  private final Path kit;
  private final List<String> command;
  private final boolean stream;
  private final String suite;
  private final PrintWriter out;

  public KitRunner(Path kit, List<String> command, boolean stream, String suite, PrintWriter out) {
    this.kit = kit;
    this.command = command;
    this.stream = stream;
    this.suite = suite;
    this.out = out;
  }

  /** {@code java KitRunner.java [--kit DIR] [--stream] [--suite S] --validator CMD WORD...}. */
  public static void main(String[] args) throws IOException {
    Path kit = Path.of(".");
    boolean stream = false;
    String suite = "protocol";
    int i = 0;
    for (; i < args.length && !args[i].equals("--validator"); i++) {
      switch (args[i]) {
        case "--kit" -> kit = Path.of(args[++i]);
        case "--stream" -> stream = true;
        case "--suite" -> suite = args[++i];
        default -> i = args.length; // unknown: usage
      }
    }
    if (i >= args.length - 1) {
      System.err.println(
          "usage: java KitRunner.java [--kit DIR] [--stream] [--suite protocol|identity]"
              + " --validator CMD [ARG...]   (every word after --validator is the command)");
      System.exit(2);
    }
    List<String> command = List.of(args).subList(i + 1, args.length);
    PrintWriter out = new PrintWriter(System.out, true);
    System.exit(new KitRunner(kit, command, stream, suite, out).run().exitCode());
  }

  /** What a vector expects, from its vector.json. */
  record Expected(
      String name,
      boolean accept,
      List<String> rules,
      String first,
      String identity,
      List<Path> files) {}

  /** What the validator said of one vector. */
  record Said(boolean accept, List<String> rules, String identity, String error) {}

  /** The score. */
  public record Score(int vectors, int passed, int verdicts, int firstRules, int ruleSets) {
    public int exitCode() {
      return passed == vectors ? 0 : 1;
    }
  }

  public Score run() throws IOException {
    List<Expected> vectors = vectors();
    int passed = 0;
    int verdicts = 0;
    int firsts = 0;
    int sets = 0;
    try (Validator validator = new Validator()) {
      for (Expected e : vectors) {
        Said s = validator.judge(e.files);
        List<String> problems = new ArrayList<>();
        boolean verdict = s.error == null && s.accept == e.accept;
        boolean first = verdict && (e.accept || Objects.equals(first(s.rules), e.first));
        Set<String> said = new LinkedHashSet<>(s.rules);
        boolean set = verdict && said.equals(new LinkedHashSet<>(e.rules));
        boolean named = verdict && e.rules.containsAll(said);
        if (s.error != null || !verdict) {
          problems.add(
              s.error != null
                  ? s.error
                  : "verdict "
                      + verdict(s.accept, s.rules, null)
                      + ", expected "
                      + verdict(e.accept, e.rules, e.first));
        }
        if (verdict && !e.accept && !first) {
          problems.add("first rule " + first(s.rules) + ", expected " + e.first);
        }
        if (!named && verdict) {
          problems.add("names rules the vector does not break " + said);
        }
        if (verdict
            && e.identity != null
            && !e.identity.equalsIgnoreCase(String.valueOf(s.identity))) {
          problems.add("identity " + s.identity + ", expected " + e.identity);
          verdict = false;
        }
        String setNote =
            verdict && !e.accept && !set
                ? " (rule set " + said + ", the vector breaks " + e.rules + ")"
                : "";
        boolean pass = problems.isEmpty();
        passed += pass ? 1 : 0;
        verdicts += verdict ? 1 : 0;
        firsts += first && verdict ? 1 : 0;
        sets += set ? 1 : 0;
        out.println(
            (pass ? "PASS " : "FAIL ")
                + e.name
                + (pass ? "" : ": " + String.join("; ", problems))
                + setNote);
      }
    }
    Score score = new Score(vectors.size(), passed, verdicts, firsts, sets);
    int n = score.vectors;
    out.printf(
        "summary: %d vectors, %d passed (%s), %d failed; verdicts %d/%d, first rules %d/%d, rule"
            + " sets %d/%d%n",
        n, passed, percent(passed, n), n - passed, verdicts, n, firsts, n, sets, n);
    return score;
  }

  private static String percent(int n, int of) {
    return of == 0 ? "0 %" : (n * 1000 / of) / 10.0 + " %";
  }

  private static String first(List<String> rules) {
    return rules.isEmpty() ? null : rules.get(0);
  }

  private static String verdict(boolean accept, List<String> rules, String first) {
    return accept ? "accept" : "reject " + rules + (first == null ? "" : " first " + first);
  }

  /** The suite's vectors, from its index: the vector.json of each (the answer key). */
  List<Expected> vectors() throws IOException {
    Path dir = kit.resolve(suite.equals("identity") ? "identity" : "vectors");
    List<Expected> out = new ArrayList<>();
    for (String name : Files.readAllLines(dir.resolve("index.txt"), StandardCharsets.UTF_8)) {
      if (name.isBlank()) {
        continue;
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> v =
          (Map<String, Object>)
              new Json(Files.readString(dir.resolve(name).resolve("vector.json"))).value();
      List<Path> files = new ArrayList<>();
      for (Object m : (List<?>) v.get("messages")) {
        files.add(dir.resolve(name).resolve((String) ((Map<?, ?>) m).get("file")).toAbsolutePath());
      }
      List<String> rules = new ArrayList<>();
      Object listed = v.get("rules");
      if (listed instanceof List<?> l) {
        l.forEach(r -> rules.add((String) r));
      }
      out.add(
          new Expected(
              name,
              "accept".equals(v.get("expect")),
              rules,
              (String) v.get("first_rule"),
              (String) v.get("identity"),
              files));
    }
    return out;
  }

  /** The validator process: one per vector, or one for the whole kit with --stream. */
  private final class Validator implements AutoCloseable {
    private Process process;
    private BufferedWriter in;
    private BufferedReader answers;

    Said judge(List<Path> files) throws IOException {
      if (!stream) {
        List<String> argv = new ArrayList<>(command);
        files.forEach(f -> argv.add(f.toString()));
        Process p = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        p.getOutputStream().close();
        String line;
        try (BufferedReader r =
            new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
          line = firstJsonLine(r);
        }
        waitFor(p);
        return parse(line);
      }
      if (process == null) {
        process =
            new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        in =
            new BufferedWriter(
                new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        answers =
            new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      }
      List<String> paths = new ArrayList<>();
      files.forEach(f -> paths.add(f.toString()));
      in.write(String.join("\t", paths));
      in.write('\n');
      in.flush();
      return parse(firstJsonLine(answers));
    }

    /** The validator's verdict: the first line that starts a JSON object (others are ignored). */
    private String firstJsonLine(BufferedReader r) throws IOException {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        if (line.trim().startsWith("{")) {
          return line;
        }
      }
      return null;
    }

    private Said parse(String line) {
      if (line == null) {
        return new Said(false, List.of(), null, "no verdict line");
      }
      try {
        Map<?, ?> m = (Map<?, ?>) new Json(line).value();
        Object verdict = m.get("verdict");
        List<String> rules = new ArrayList<>();
        if (m.get("rules") instanceof List<?> l) {
          l.forEach(r -> rules.add(String.valueOf(r)));
        }
        if (!"accept".equals(verdict) && !"reject".equals(verdict)) {
          return new Said(
              false, rules, null, "verdict " + verdict + " is neither accept nor reject");
        }
        return new Said("accept".equals(verdict), rules, (String) m.get("identity"), null);
      } catch (RuntimeException e) {
        return new Said(false, List.of(), null, "not a JSON verdict: " + line);
      }
    }

    private void waitFor(Process p) {
      try {
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public void close() throws IOException {
      if (process != null) {
        in.close();
        waitFor(process);
      }
    }
  }

  /** The smallest JSON reader the kit needs: objects, arrays, strings, numbers, literals. */
  static final class Json {
    private final String s;
    private int i;

    Json(String s) {
      this.s = s;
    }

    Object value() {
      blanks();
      char c = s.charAt(i);
      if (c == '{') {
        Map<String, Object> m = new LinkedHashMap<>();
        i++;
        blanks();
        if (s.charAt(i) == '}') {
          i++;
          return m;
        }
        do {
          blanks();
          String key = string();
          blanks();
          expect(':');
          m.put(key, value());
          blanks();
        } while (s.charAt(i++) == ',');
        return m;
      }
      if (c == '[') {
        List<Object> l = new ArrayList<>();
        i++;
        blanks();
        if (s.charAt(i) == ']') {
          i++;
          return l;
        }
        do {
          l.add(value());
          blanks();
        } while (s.charAt(i++) == ',');
        return l;
      }
      if (c == '"') {
        return string();
      }
      int start = i;
      while (i < s.length() && ",}] \t\r\n".indexOf(s.charAt(i)) < 0) {
        i++;
      }
      String word = s.substring(start, i);
      return switch (word) {
        case "null" -> null;
        case "true" -> Boolean.TRUE;
        case "false" -> Boolean.FALSE;
        default -> Double.valueOf(word);
      };
    }

    private String string() {
      expect('"');
      StringBuilder b = new StringBuilder();
      for (char c = s.charAt(i++); c != '"'; c = s.charAt(i++)) {
        if (c == '\\') {
          char e = s.charAt(i++);
          switch (e) {
            case 'n' -> b.append('\n');
            case 't' -> b.append('\t');
            case 'r' -> b.append('\r');
            case 'u' -> {
              b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
              i += 4;
            }
            default -> b.append(e);
          }
        } else {
          b.append(c);
        }
      }
      return b.toString();
    }

    private void expect(char c) {
      if (s.charAt(i++) != c) {
        throw new IllegalArgumentException("expected " + c + " at " + (i - 1));
      }
    }

    private void blanks() {
      while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
        i++;
      }
    }
  }
}
