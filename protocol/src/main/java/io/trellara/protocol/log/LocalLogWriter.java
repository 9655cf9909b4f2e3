package io.trellara.protocol.log;

import static io.trellara.protocol.log.LocalLogFormat.*;

import io.trellara.protocol.MessageKind;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32;

/**
 * Appends TLG2 frames. Opening an existing log first reads it through: a torn tail is truncated
 * away, and a corrupt frame anywhere refuses the open (appending after corruption would bury it).
 */
public final class LocalLogWriter implements Closeable {
  private final Path file;
  private final FileChannel channel;
  private final FsyncPolicy fsync;
  private final ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES + 1);
  private final ByteBuffer trailer = ByteBuffer.allocate(TRAILER_BYTES);
  private final CRC32 crc = new CRC32();
  private long position;

  private LocalLogWriter(Path file, FileChannel channel, FsyncPolicy fsync, long position) {
    this.file = file;
    this.channel = channel;
    this.fsync = fsync;
    this.position = position;
  }

  public static LocalLogWriter open(Path file, FsyncPolicy fsync) {
    try {
      long validEnd = 0;
      if (Files.exists(file)) {
        try (LocalLogReader reader = LocalLogReader.open(file)) {
          while (reader.next() != null) {
            // read through: throws on corruption, stops at a torn tail
          }
          validEnd = reader.validEnd();
        }
      }
      FileChannel ch =
          FileChannel.open(
              file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ);
      if (ch.size() > validEnd) {
        ch.truncate(validEnd);
        ch.force(true);
      }
      return new LocalLogWriter(file, ch, fsync, validEnd);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open local log " + file + " for append", e);
    }
  }

  /** Appends one message as a TLG2 frame; returns the frame's offset. */
  public long append(MessageKind kind, byte[] message) {
    return append(kind, message, 0, message.length);
  }

  public long append(MessageKind kind, byte[] message, int offset, int length) {
    return appendFrame(kind.code(), message, offset, length);
  }

  /** Appends a private spill record (see {@link LocalLogFormat#SPILL_CODE}). */
  public long appendSpill(byte[] record, int offset, int length) {
    return appendFrame(SPILL_CODE, record, offset, length);
  }

  private long appendFrame(byte code, byte[] message, int offset, int length) {
    long bodyLength = 1L + length;
    if (bodyLength > MAX_BODY_BYTES) {
      throw new IllegalArgumentException(
          "a "
              + length
              + "-byte message exceeds the local log's "
              + MAX_BODY_BYTES
              + "-byte frame cap; chunk the transaction");
    }
    crc.reset();
    crc.update(code);
    crc.update(message, offset, length);
    header.clear();
    header.put(MAGIC_TLG2).putInt((int) bodyLength).put(code).flip();
    trailer.clear();
    trailer.putInt((int) crc.getValue()).flip();
    long start = position;
    try {
      ByteBuffer[] frame = {header, ByteBuffer.wrap(message, offset, length), trailer};
      long total = HEADER_BYTES + bodyLength + TRAILER_BYTES;
      long written = 0;
      channel.position(start);
      while (written < total) {
        written += channel.write(frame);
      }
      position = start + total;
      if (fsync == FsyncPolicy.EVERY_FRAME) {
        channel.force(false);
      }
      return start;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot append to local log " + file, e);
    }
  }

  /** Makes every appended frame durable (unless the policy is NEVER). */
  public void flush() {
    if (fsync == FsyncPolicy.NEVER) {
      return;
    }
    try {
      channel.force(false);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot fsync local log " + file, e);
    }
  }

  public long size() {
    return position;
  }

  @Override
  public void close() {
    flush();
    try {
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
