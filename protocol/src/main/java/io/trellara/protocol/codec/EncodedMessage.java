package io.trellara.protocol.codec;

import io.trellara.protocol.MessageKind;

/**
 * The bytes of a validated, checksummed message, with the checksum they carry (a manifest lists
 * it).
 */
public record EncodedMessage(MessageKind kind, byte[] bytes, long checksum) {}
