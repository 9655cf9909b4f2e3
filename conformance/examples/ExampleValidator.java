// A deliberately tiny validator in the kit runner's protocol (docs/conformance.md), in plain Java with
// no library: run it as `java ExampleValidator.java FILE...` (one vector) or with no argument, reading one
// vector a line (tab-separated paths) on standard input. It judges two byte rules only:
//   MALFORMED_BYTES           the top-level fields do not scan (a truncated field, a lone end group);
//   UNKNOWN_PROTOCOL_VERSION  field 1 is absent or not 1.
// Everything else it accepts: it computes no checksum (xxh3_64 is not in the JDK) and judges no rule of a
// message's content, so the runner scores it honestly low. Grow it rule by rule from docs/protocol.md.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;

public class ExampleValidator {
  public static void main(String[] args) throws Exception {
    if (args.length > 0) {
      System.out.println(judge(args));
      return;
    }
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      System.out.println(judge(line.split("\t")));
      System.out.flush();
    }
  }

  /** One vector: the first message that breaks a rule decides. */
  static String judge(String[] files) throws Exception {
    for (String file : files) {
      String rule = rule(Files.readAllBytes(Path.of(file)));
      if (rule != null) {
        return "{\"verdict\": \"reject\", \"rules\": [\"" + rule + "\"]}";
      }
    }
    return "{\"verdict\": \"accept\"}";
  }

  /** The byte rule one message breaks, or null. */
  static String rule(byte[] b) {
    long version = -1;
    int[] at = {0};
    while (at[0] < b.length) {
      long tag = varint(b, at);
      if (tag < 0) {
        return "MALFORMED_BYTES";
      }
      int field = (int) (tag >>> 3);
      int type = (int) (tag & 7);
      if (type == 0) {
        long value = varint(b, at);
        if (value == -2) {
          return "MALFORMED_BYTES";
        }
        version = field == 1 ? value : version;
      } else if (type == 1 || type == 5) {
        at[0] += type == 1 ? 8 : 4;
      } else if (type == 2) {
        long length = varint(b, at);
        if (length < 0 || length > b.length - at[0]) {
          return "MALFORMED_BYTES";
        }
        at[0] += (int) length;
      } else if (type != 3) {
        return "MALFORMED_BYTES"; // an end group no start group opened, or wire type 6 or 7
      }
    }
    if (at[0] > b.length) {
      return "MALFORMED_BYTES";
    }
    return version == 1 ? null : "UNKNOWN_PROTOCOL_VERSION";
  }

  /** A varint at at[0] (advanced past it); -2 when it runs off the end or past ten bytes. */
  static long varint(byte[] b, int[] at) {
    long value = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (at[0] >= b.length) {
        return -2;
      }
      int x = b[at[0]++] & 0xFF;
      value |= (long) (x & 0x7F) << shift;
      if (x < 0x80) {
        return value;
      }
    }
    return -2;
  }
}
