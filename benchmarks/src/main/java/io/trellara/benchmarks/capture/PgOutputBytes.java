package io.trellara.benchmarks.capture;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** Writes pgoutput messages byte by byte, as the server sends them, for benchmarks that feed the real parser. */
public final class PgOutputBytes {
    private PgOutputBytes() {
    }

    /** A message's body, written to the stream. */
    public interface Body {
        void write(DataOutputStream out) throws IOException;
    }

    public static byte[] message(Body body) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            body.write(out);
        }
        return bytes.toByteArray();
    }

    /** A NUL-terminated UTF-8 string (pgoutput's String). */
    public static void cstring(DataOutputStream out, String s) throws IOException {
        out.write(s.getBytes(StandardCharsets.UTF_8));
        out.write(0);
    }
}
