package io.trellara.protocol.log;

import static io.trellara.protocol.log.LocalLogFormat.*;

import io.trellara.protocol.MessageKind;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * Streams frames from a local log. Corruption throws {@link LocalLogCorruptionException} with the
 * offset; a short read at the end (a torn tail) ends the log at the last complete valid frame.
 */
public final class LocalLogReader implements Closeable {
  private final Path file;
  private final FileChannel channel;
  private final long size;
  private final ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
  private final ByteBuffer trailer = ByteBuffer.allocate(TRAILER_BYTES);
  private long position;
  private boolean tornTail;

  private LocalLogReader(Path file, FileChannel channel) throws IOException {
    this.file = file;
    this.channel = channel;
    this.size = channel.size();
  }

  public static LocalLogReader open(Path file) {
    try {
      return new LocalLogReader(file, FileChannel.open(file, StandardOpenOption.READ));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open local log " + file, e);
    }
  }

  /** The next frame, or null at the end of the log (clean end or torn tail). */
  public LogRecord next() {
    long start = position;
    long remaining = size - start;
    if (remaining == 0) {
      return null;
    }
    try {
      if (remaining < HEADER_BYTES) {
        byte[] partial = new byte[(int) remaining];
        channel.read(ByteBuffer.wrap(partial), start);
        requireMagicPrefix(partial, start);
        return torn();
      }
      header.clear();
      readFully(header, start);
      byte[] magic = Arrays.copyOf(header.array(), 4);
      int version = formatVersion(magic, start);
      long length = Integer.toUnsignedLong(header.getInt(4));
      if (length > MAX_BODY_BYTES) {
        throw new LocalLogCorruptionException(
            file, start, "body length " + length + " exceeds the " + MAX_BODY_BYTES + "-byte cap");
      }
      if (remaining < HEADER_BYTES + length + TRAILER_BYTES) {
        return torn();
      }
      byte[] body = new byte[(int) length];
      readFully(ByteBuffer.wrap(body), start + HEADER_BYTES);
      trailer.clear();
      readFully(trailer, start + HEADER_BYTES + length);
      CRC32 crc = new CRC32();
      crc.update(body);
      long expected = Integer.toUnsignedLong(trailer.getInt(0));
      if (crc.getValue() != expected) {
        throw new LocalLogCorruptionException(
            file,
            start,
            "CRC32 of the body is "
                + Long.toHexString(crc.getValue())
                + ", the frame says "
                + Long.toHexString(expected));
      }
      position = start + HEADER_BYTES + length + TRAILER_BYTES;
      return toRecord(start, version, body);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read local log " + file + " at " + start, e);
    }
  }

  private LogRecord toRecord(long start, int version, byte[] body) {
    if (version == 1) {
      return new LogRecord(start, 1, MessageKind.ENVELOPE, body);
    }
    if (body.length == 0) {
      throw new LocalLogCorruptionException(file, start, "TLG2 body has no message-kind byte");
    }
    MessageKind kind;
    try {
      kind = body[0] == SPILL_CODE ? null : MessageKind.fromCode(body[0]);
    } catch (IllegalArgumentException e) {
      throw new LocalLogCorruptionException(file, start, e.getMessage());
    }
    return new LogRecord(start, 2, kind, Arrays.copyOfRange(body, 1, body.length));
  }

  private LogRecord torn() {
    tornTail = true;
    return null;
  }

  private int formatVersion(byte[] magic, long offset) {
    if (Arrays.equals(magic, MAGIC_TLG2)) {
      return 2;
    }
    if (Arrays.equals(magic, MAGIC_TLG1)) {
      return 1;
    }
    throw new LocalLogCorruptionException(file, offset, "unknown frame magic " + printable(magic));
  }

  /** A partial header is a torn tail only if what is there could begin a frame. */
  private void requireMagicPrefix(byte[] partial, long offset) {
    int n = Math.min(partial.length, 4);
    boolean tlg2 = Arrays.equals(partial, 0, n, MAGIC_TLG2, 0, n);
    boolean tlg1 = Arrays.equals(partial, 0, n, MAGIC_TLG1, 0, n);
    if (!tlg1 && !tlg2) {
      throw new LocalLogCorruptionException(
          file, offset, "unknown frame magic " + printable(partial));
    }
  }

  private static String printable(byte[] bytes) {
    StringBuilder sb = new StringBuilder("0x");
    for (int i = 0; i < Math.min(bytes.length, 4); i++) {
      sb.append(String.format("%02x", bytes[i] & 0xFF));
    }
    return sb.toString();
  }

  private void readFully(ByteBuffer buf, long at) throws IOException {
    long p = at;
    while (buf.hasRemaining()) {
      int n = channel.read(buf, p);
      if (n < 0) {
        throw new EOFException("unexpected end of " + file + " at " + p);
      }
      p += n;
    }
  }

  /** Offset just past the last complete valid frame read so far. */
  public long validEnd() {
    return position;
  }

  /** True once the reader has met a torn tail (a partial last frame). */
  public boolean tornTail() {
    return tornTail;
  }

  @Override
  public void close() {
    try {
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
