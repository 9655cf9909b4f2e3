package io.trellara.source.pgoutput;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Fixture framing: a file is a sequence of messages, each a u32 big-endian length followed by that
 * many bytes (one pgoutput message, the XLogData payload without its 25-byte header).
 */
final class PgOutputFixtures {

  static final String RESOURCE_DIR = "/pgoutput/";

  private PgOutputFixtures() {}

  static byte[] encode(List<byte[]> messages) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      for (byte[] m : messages) {
        out.writeInt(m.length);
        out.write(m);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  static List<byte[]> decode(InputStream stream) throws IOException {
    List<byte[]> messages = new ArrayList<>();
    try (DataInputStream in = new DataInputStream(stream)) {
      while (true) {
        int length;
        try {
          length = in.readInt();
        } catch (EOFException end) {
          return messages;
        }
        byte[] m = new byte[length];
        in.readFully(m);
        messages.add(m);
      }
    }
  }

  /** Loads {@code /pgoutput/<name>.pgoutput} from the test class path. */
  static List<byte[]> load(String name) {
    String resource = RESOURCE_DIR + name + ".pgoutput";
    try (InputStream in = PgOutputFixtures.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            "missing fixture " + resource + " (run PgOutputFixtureCapture)");
      }
      return decode(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Parses all messages of a fixture with one parser of the given protocol version. */
  static List<PgOutputMessage> parseAll(List<byte[]> messages, int protocolVersion) {
    PgOutputParser parser = new PgOutputParser(protocolVersion);
    List<PgOutputMessage> parsed = new ArrayList<>(messages.size());
    for (byte[] m : messages) {
      parsed.add(parser.parse(ByteBuffer.wrap(m)));
    }
    return parsed;
  }

  /** The type bytes as a string, e.g. "BRIIC". */
  static String typeSequence(List<byte[]> messages) {
    StringBuilder sb = new StringBuilder(messages.size());
    for (byte[] m : messages) {
      sb.append((char) m[0]);
    }
    return sb.toString();
  }
}
