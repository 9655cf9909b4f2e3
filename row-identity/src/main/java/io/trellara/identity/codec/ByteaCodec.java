package io.trellara.identity.codec;

import io.trellara.identity.TypeTag;

/**
 * bytea: the raw bytes escaped and ended; text input must be the hex output format ({@code \x...}).
 */
final class ByteaCodec implements FieldCodec {
  static final ByteaCodec INSTANCE = new ByteaCodec();

  @Override
  public TypeTag tag() {
    return TypeTag.BYTEA;
  }

  @Override
  public void encodeText(byte[] v, int off, int end, IdentityBuffer out, int depth) {
    if (end - off < 2 || v[off] != '\\' || v[off + 1] != 'x' || ((end - off) & 1) != 0) {
      throw Ascii.invalid("bytea (hex format expected)", v, off, end);
    }
    out.ensure((end - off) / 2 + 2);
    for (int i = off + 2; i < end; i += 2) {
      int hi = Ascii.hexValue(v[i]);
      int lo = Ascii.hexValue(v[i + 1]);
      if (hi < 0 || lo < 0) {
        throw Ascii.invalid("bytea", v, off, end);
      }
      out.putEscaped((hi << 4) | lo);
    }
    out.putEnd();
  }

  @Override
  public boolean supportsBinary() {
    return true;
  }

  @Override
  public void encodeBinary(byte[] v, int off, int end, IdentityBuffer out) {
    out.putEscaped(v, off, end - off);
    out.putEnd();
  }

  /** Decoding: the unescaped bytes in hex output format. */
  static String render(IdentityReader in) {
    return "\\x" + Ascii.hex(in.unescaped());
  }
}
