package io.trellara.protocol.log;

import java.nio.file.Path;

/**
 * A frame that cannot be trusted: bad magic, a length above the cap, or a CRC mismatch. Never
 * skipped.
 */
public class LocalLogCorruptionException extends RuntimeException {
  private final Path file;
  private final long offset;

  public LocalLogCorruptionException(Path file, long offset, String detail) {
    super("local log " + file + " is corrupt at byte offset " + offset + ": " + detail);
    this.file = file;
    this.offset = offset;
  }

  public Path file() {
    return file;
  }

  public long offset() {
    return offset;
  }
}
