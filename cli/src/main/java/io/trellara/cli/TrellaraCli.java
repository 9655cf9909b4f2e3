package io.trellara.cli;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.log.FsyncPolicy;
import io.trellara.protocol.log.LocalLogCorruptionException;
import io.trellara.protocol.log.LocalLogReader;
import io.trellara.protocol.log.LocalLogWriter;
import io.trellara.protocol.log.LogRecord;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.protocol.verify.TransactionVerifier;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The {@code trellara} command-line tool. Exit status: 0 all good, 1 a violation or corruption, 2
 * usage.
 */
@Command(
    name = "trellara",
    mixinStandardHelpOptions = true,
    scope = CommandLine.ScopeType.INHERIT, // --help and --version on every command
    version = "trellara 0.1.0",
    description = "Inspect and verify Trellara messages and local logs; show a pipeline's status.",
    subcommands = {
      TrellaraCli.Inspect.class,
      TrellaraCli.Verify.class,
      TrellaraCli.Log.class,
      IdentityCommand.class,
      ConformanceCommand.class,
      StatusCommand.class,
      SnapshotCommand.class
    })
public final class TrellaraCli {

  public static void main(String[] args) {
    System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
  }

  /** Runs the tool with the given streams; returns the exit status (tests call this). */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    CommandLine cl = new CommandLine(new TrellaraCli());
    cl.setOut(out);
    cl.setErr(err);
    cl.setExecutionExceptionHandler(
        (ex, cmd, parsed) -> {
          cmd.getErr().println("trellara: " + ex.getMessage());
          return 1;
        });
    cl.setExecutionStrategy(TrellaraCli::strictly);
    return cl.execute(args);
  }

  /**
   * Runs the command line as picocli does, except that an unknown command or option is a usage
   * error (exit 2) even when a help option stands beside it: picocli would print the top-level
   * usage and exit 0 for {@code trellara conformanse run --help}, and a script could not tell.
   */
  private static int strictly(CommandLine.ParseResult parsed) {
    for (CommandLine.ParseResult p = parsed; p != null; p = p.subcommand()) {
      if (!p.unmatched().isEmpty()) {
        CommandLine cmd = p.commandSpec().commandLine();
        cmd.getErr()
            .println("trellara: unknown command or option: " + String.join(" ", p.unmatched()));
        cmd.usage(cmd.getErr());
        return 2;
      }
    }
    return new CommandLine.RunLast().execute(parsed);
  }

  static MessageKind kind(String name) {
    return name == null ? null : MessageKind.fromWireName(name);
  }

  @Command(
      name = "inspect",
      description =
          "Print messages as JSON with their verification result and the"
              + " dml/ddl/source_total line. PATH is a message file, a local log, or a directory of .bin files.")
  static final class Inspect implements Callable<Integer> {
    @Parameters(paramLabel = "PATH")
    Path path;

    @Option(
        names = "--kind",
        description = "envelope, chunk, manifest or commit_marker (default: detect)")
    String kind;

    @Option(names = "--summary", description = "omit the message bodies")
    boolean summary;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      List<MessageReport> reports = Inputs.reports(path, kind(kind));
      reports.forEach(r -> spec.commandLine().getOut().println(r.toJson(!summary)));
      return reports.stream().allMatch(MessageReport::verified) ? 0 : 1;
    }
  }

  @Command(
      name = "verify",
      description =
          "Verify checksums and every protocol rule, then the barrier of a"
              + " manifest and its marker; print every rule each message breaks; exit 1 if any is broken.")
  static final class Verify implements Callable<Integer> {
    @Parameters(paramLabel = "PATH")
    Path path;

    @Option(
        names = "--kind",
        description = "envelope, chunk, manifest or commit_marker (default: detect)")
    String kind;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      int failures = 0;
      List<MessageReport> reports = Inputs.reports(path, kind(kind));
      for (MessageReport r : reports) {
        if (r.verified()) {
          spec.commandLine()
              .getOut()
              .println(
                  "OK "
                      + r.source()
                      + " "
                      + r.kind().wireName()
                      + " "
                      + MessageReport.summary(r.message())[1]);
        } else {
          failures++;
          r.violations()
              .forEach(
                  v ->
                      spec.commandLine()
                          .getOut()
                          .println("REJECTED " + r.source() + " " + describe(v)));
        }
      }
      List<String> barrier = barrierVerdict(reports);
      barrier.forEach(spec.commandLine().getOut()::println);
      failures += barrier.stream().anyMatch(line -> line.startsWith("REJECTED")) ? 1 : 0;
      spec.commandLine()
          .getOut()
          .println(reports.size() + " message(s), " + failures + " rejected");
      return failures == 0 ? 0 : 1;
    }
  }

  /**
   * When the messages hold a manifest and its marker, the barrier check a sink makes before
   * applying: one line per broken rule, or one line saying it holds (or why it was not checked);
   * nothing without a barrier.
   */
  static List<String> barrierVerdict(List<MessageReport> reports) {
    TransactionManifest manifest = null;
    boolean marker = false;
    int chunks = 0;
    for (MessageReport r : reports) {
      manifest = r.message() instanceof TransactionManifest m ? m : manifest;
      marker |= r.message() instanceof TransactionCommitMarker;
      chunks += r.message() instanceof PartitionChunk ? 1 : 0;
    }
    if (manifest == null || !marker) {
      return List.of();
    }
    Optional<List<ProtocolViolationException>> barrier =
        TransactionVerifier.barrier(reports.stream().map(MessageReport::checked).toList());
    if (barrier.isEmpty()) {
      return List.of("BARRIER NOT CHECKED: a message of it was rejected");
    }
    if (barrier.get().isEmpty()) {
      return List.of(
          "BARRIER OK "
              + MessageReport.summary(manifest)[0]
              + " "
              + MessageReport.summary(manifest)[1]
              + " chunks="
              + chunks);
    }
    return barrier.get().stream().map(v -> "REJECTED barrier " + describe(v)).toList();
  }

  private static String describe(ProtocolViolationException v) {
    return "rule="
        + v.rule().name()
        + " field="
        + v.field()
        + " event_key="
        + v.eventKey()
        + ": "
        + v.getMessage();
  }

  @Command(
      name = "log",
      description = "Local log tools.",
      subcommands = {Log.Dump.class, Log.VerifyLog.class, Log.Recover.class})
  static final class Log {
    @Command(
        name = "dump",
        description = "List every frame: offset, format, kind, size, verification.")
    static final class Dump implements Callable<Integer> {
      @Parameters(paramLabel = "LOG")
      Path log;

      @CommandLine.Spec CommandLine.Model.CommandSpec spec;

      @Override
      public Integer call() {
        return walk(log, spec.commandLine().getOut(), true);
      }
    }

    @Command(
        name = "verify",
        description = "Check framing (magic, length cap, CRC32) and every message.")
    static final class VerifyLog implements Callable<Integer> {
      @Parameters(paramLabel = "LOG")
      Path log;

      @CommandLine.Spec CommandLine.Model.CommandSpec spec;

      @Override
      public Integer call() {
        return walk(log, spec.commandLine().getOut(), false);
      }
    }

    @Command(
        name = "recover",
        description =
            "Truncate a torn tail so the log can be appended to again."
                + " Corruption is never truncated away: it is reported and the log left as it is.")
    static final class Recover implements Callable<Integer> {
      @Parameters(paramLabel = "LOG")
      Path log;

      @CommandLine.Spec CommandLine.Model.CommandSpec spec;

      @Override
      public Integer call() throws Exception {
        long before = Files.size(log);
        try (LocalLogWriter w = LocalLogWriter.open(log, FsyncPolicy.ON_FLUSH)) {
          spec.commandLine()
              .getOut()
              .println(
                  "recovered "
                      + log
                      + ": "
                      + w.size()
                      + " bytes of complete"
                      + " frames kept, "
                      + (before - w.size())
                      + " bytes of torn tail removed");
        } catch (LocalLogCorruptionException e) {
          spec.commandLine().getOut().println("CORRUPT " + e.getMessage());
          return 1;
        }
        return 0;
      }
    }

    static int walk(Path log, PrintWriter out, boolean listEach) {
      int frames = 0;
      int rejected = 0;
      try (LocalLogReader reader = LocalLogReader.open(log)) {
        for (LogRecord r = reader.next(); r != null; r = reader.next()) {
          frames++;
          if (r.isSpill()) {
            if (listEach) {
              out.println(
                  "offset=" + r.offset() + " format=TLG2 kind=spill bytes=" + r.message().length);
            }
            continue;
          }
          MessageReport report = MessageReport.of(log + "@" + r.offset(), r.kind(), r.message());
          rejected += report.verified() ? 0 : 1;
          if (listEach || !report.verified()) {
            out.println(
                "offset="
                    + r.offset()
                    + " format=TLG"
                    + r.formatVersion()
                    + " kind="
                    + r.kind().wireName()
                    + " bytes="
                    + r.message().length
                    + " "
                    + (report.verified()
                        ? "verified " + MessageReport.summary(report.message())[1]
                        : "REJECTED rule=" + report.ruleNames()));
          }
        }
        out.println(
            frames
                + " frame(s), "
                + rejected
                + " rejected"
                + (reader.tornTail()
                    ? ", torn tail after offset "
                        + reader.validEnd()
                        + " (run 'trellara log recover')"
                    : ""));
      } catch (LocalLogCorruptionException e) {
        out.println("CORRUPT " + e.getMessage());
        return 1;
      }
      return rejected == 0 ? 0 : 1;
    }
  }
}
