package io.trellara.identity.codec;

import io.trellara.identity.TypeTag;

/** uuid: 16 network-order bytes (PostgreSQL compares uuids with memcmp). */
final class UuidCodec implements FieldCodec {
  static final UuidCodec INSTANCE = new UuidCodec();

  @Override
  public TypeTag tag() {
    return TypeTag.UUID;
  }

  @Override
  public void encodeText(byte[] v, int off, int end, IdentityBuffer out, int depth) {
    if (end - off != 36) {
      throw Ascii.invalid("uuid", v, off, end);
    }
    out.ensure(16);
    int i = off;
    for (int n = 0; n < 16; n++) {
      if (i - off == 8 || i - off == 13 || i - off == 18 || i - off == 23) {
        if (v[i] != '-') {
          throw Ascii.invalid("uuid", v, off, end);
        }
        i++;
      }
      int hi = Ascii.hexValue(v[i]);
      int lo = Ascii.hexValue(v[i + 1]);
      if (hi < 0 || lo < 0) {
        throw Ascii.invalid("uuid", v, off, end);
      }
      out.put((hi << 4) | lo);
      i += 2;
    }
  }

  @Override
  public boolean supportsBinary() {
    return true;
  }

  @Override
  public void encodeBinary(byte[] v, int off, int end, IdentityBuffer out) {
    if (end - off != 16) {
      throw Ascii.invalid("uuid binary", v, off, end);
    }
    out.putBytes(v, off, 16);
  }

  /** Decoding: the 16 bytes in the canonical 8-4-4-4-12 form. */
  static String render(IdentityReader in) {
    StringBuilder sb = new StringBuilder(36);
    for (int i = 0; i < 16; i++) {
      if (i == 4 || i == 6 || i == 8 || i == 10) {
        sb.append('-');
      }
      Ascii.appendHex(sb, in.u8());
    }
    return sb.toString();
  }
}
