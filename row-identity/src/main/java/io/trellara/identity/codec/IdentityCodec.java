package io.trellara.identity.codec;

import io.trellara.identity.DecodedField;
import io.trellara.identity.DecodedIdentity;
import io.trellara.identity.RowIdentityDecoder;
import io.trellara.identity.RowIdentityException;
import io.trellara.identity.RowIdentityVersion;
import io.trellara.identity.TypeTag;

/**
 * A child identity nested in a parent (join keys): u32 BE byte length, then the complete child
 * identity (its own version, domain, field count and FF end). Text form is bytea hex ({@code
 * \x...}); binary form is the raw identity bytes.
 */
final class IdentityCodec implements FieldCodec {
  static final IdentityCodec INSTANCE = new IdentityCodec();

  @Override
  public TypeTag tag() {
    return TypeTag.IDENTITY;
  }

  @Override
  public void encodeText(byte[] v, int off, int end, IdentityBuffer out, int depth) {
    Structural.enter(depth, "identity");
    if (end - off < 2 || v[off] != '\\' || v[off + 1] != 'x' || ((end - off) & 1) != 0) {
      throw Ascii.invalid("identity (hex expected)", v, off, end);
    }
    int n = (end - off - 2) / 2;
    checkShape(n, n > 0 ? hexByte(v, off + 2) : -1, n > 0 ? hexByte(v, end - 2) : -1);
    out.putU32(n);
    out.ensure(n);
    for (int i = off + 2; i < end; i += 2) {
      out.put(hexByte(v, i));
    }
  }

  private static int hexByte(byte[] v, int i) {
    int hi = Ascii.hexValue(v[i]);
    int lo = Ascii.hexValue(v[i + 1]);
    if (hi < 0 || lo < 0) {
      throw new RowIdentityException("invalid hex in child identity");
    }
    return hi << 4 | lo;
  }

  private static void checkShape(int length, int first, int last) {
    if (length < 7 || first != RowIdentityVersion.V2 || last != Structural.TUPLE_END) {
      throw new RowIdentityException("child identity is not a complete V2 identity");
    }
  }

  @Override
  public boolean supportsBinary() {
    return true;
  }

  @Override
  public void encodeBinary(byte[] v, int off, int end, IdentityBuffer out) {
    int n = end - off;
    checkShape(n, n > 0 ? v[off] & 0xFF : -1, n > 0 ? v[end - 1] & 0xFF : -1);
    out.putU32(n);
    out.putBytes(v, off, n);
  }

  /**
   * Decoding: the child bytes as bytea hex, with the child identity's own fields decoded as
   * children.
   */
  static DecodedField decode(IdentityReader in) {
    byte[] child = in.rest();
    DecodedIdentity decoded = RowIdentityDecoder.decode(child);
    return new DecodedField(TypeTag.IDENTITY, false, "\\x" + Ascii.hex(child), decoded.fields());
  }
}
