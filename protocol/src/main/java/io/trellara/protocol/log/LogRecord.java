package io.trellara.protocol.log;

import io.trellara.protocol.MessageKind;

/**
 * One frame read back: where it starts, which format wrote it, the message kind (null for a private
 * spill record, see {@link LocalLogFormat#SPILL_CODE}) and the body after the kind byte.
 */
public record LogRecord(long offset, int formatVersion, MessageKind kind, byte[] message) {

  public boolean isSpill() {
    return kind == null;
  }
}
