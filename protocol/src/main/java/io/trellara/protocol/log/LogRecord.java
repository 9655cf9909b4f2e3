package io.trellara.protocol.log;

import io.trellara.protocol.MessageKind;

/** One frame read back: where it starts, which format wrote it, and the message it holds. */
public record LogRecord(long offset, int formatVersion, MessageKind kind, byte[] message) {
}
