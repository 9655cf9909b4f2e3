package io.trellara.identity.codec;

import io.trellara.identity.RowIdentityException;
import io.trellara.identity.TypeTag;

/** bool: one byte, false (00) before true (01). */
final class BoolCodec implements FieldCodec {
  static final BoolCodec INSTANCE = new BoolCodec();

  @Override
  public TypeTag tag() {
    return TypeTag.BOOL;
  }

  @Override
  public void encodeText(byte[] v, int off, int end, IdentityBuffer out, int depth) {
    if (end - off == 1 && (v[off] == 't' || v[off] == 'f')) {
      out.put(v[off] == 't' ? 1 : 0);
    } else if (Ascii.equalsIgnoreCase(v, off, end, "true")) {
      out.put(1);
    } else if (Ascii.equalsIgnoreCase(v, off, end, "false")) {
      out.put(0);
    } else {
      throw Ascii.invalid("bool", v, off, end);
    }
  }

  @Override
  public boolean supportsBinary() {
    return true;
  }

  @Override
  public void encodeBinary(byte[] v, int off, int end, IdentityBuffer out) {
    if (end - off != 1 || (v[off] & 0xFE) != 0) {
      throw Ascii.invalid("bool binary", v, off, end);
    }
    out.put(v[off]);
  }

  /** Decoding: 00 false, 01 true; any other byte is malformed. */
  static String render(IdentityReader in) {
    int v = in.u8();
    if (v > 1) {
      throw new RowIdentityException("invalid bool byte " + v);
    }
    return v == 1 ? "true" : "false";
  }
}
