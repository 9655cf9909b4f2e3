package io.trellara.protocol.codec;

import com.google.protobuf.Message;
import net.openhft.hashing.LongHashFunction;

/**
 * xxh3_64 (seed 0), the protocol's one hash. A message's checksum is that of its bytes without the
 * checksum field (TrellaraCodec verifies it over the bytes as received); {@link #of} gives it for a
 * message a writer encodes, whose canonical encoding is exactly the encoding with the checksum
 * zeroed.
 */
public final class Checksums {
  private static final LongHashFunction XX3 = LongHashFunction.xx3();

  private Checksums() {}

  public static long xxh3(byte[] bytes, int offset, int length) {
    return XX3.hashBytes(bytes, offset, length);
  }

  /** The checksum a message must carry; {@code message} may already carry one (it is ignored). */
  public static long of(Message message) {
    return xxh3(TrellaraCodec.zeroedBytes(message));
  }

  public static long xxh3(byte[] bytes) {
    return XX3.hashBytes(bytes);
  }

  /** Lower-case 16-digit hex, the display form used in logs and the CLI. */
  public static String hex(long checksum) {
    String s = Long.toHexString(checksum);
    return "0".repeat(16 - s.length()) + s;
  }
}
