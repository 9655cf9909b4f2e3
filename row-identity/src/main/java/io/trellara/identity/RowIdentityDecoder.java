package io.trellara.identity;

import io.trellara.identity.codec.FieldRenderer;
import io.trellara.identity.codec.IdentityBuffer;
import java.util.List;

/**
 * Decodes identity bytes to typed fields for inspection; strict, so malformed bytes are an error.
 */
public final class RowIdentityDecoder {
  private RowIdentityDecoder() {}

  public static DecodedIdentity decode(byte[] identity) {
    if (identity.length > IdentityBuffer.MAX_IDENTITY_BYTES) {
      throw new RowIdentityException(
          "identity of " + identity.length + " bytes exceeds the 1 MiB limit");
    }
    if (identity.length < 7) {
      throw new RowIdentityException(
          "identity of " + identity.length + " bytes is shorter than its header");
    }
    if ((identity[0] & 0xFF) != RowIdentityVersion.V2) {
      throw new RowIdentityException(
          "identity version 0x" + Integer.toHexString(identity[0] & 0xFF) + " is not V2 (0x02)");
    }
    RowIdentityDomain domain = RowIdentityDomain.fromCode(identity[1] & 0xFF);
    FieldRenderer r = new FieldRenderer(identity, 2, identity.length);
    List<DecodedField> fields = r.tuple(0);
    if (r.position() != identity.length) {
      throw new RowIdentityException(
          (identity.length - r.position()) + " bytes after the tuple end");
    }
    return new DecodedIdentity(RowIdentityVersion.V2, domain, fields);
  }
}
