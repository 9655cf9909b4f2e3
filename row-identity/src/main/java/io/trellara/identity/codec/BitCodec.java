package io.trellara.identity.codec;

import io.trellara.identity.RowIdentityException;
import io.trellara.identity.TypeTag;

/**
 * bit/varbit: bit length (u32 BE), then the packed bits (most significant first, zero-padded)
 * escaped and ended by 00 00. Orders by length first: for varbit this is not PostgreSQL's order
 * (documented).
 */
final class BitCodec implements FieldCodec {
  static final BitCodec BIT = new BitCodec(TypeTag.BIT);
  static final BitCodec VARBIT = new BitCodec(TypeTag.VARBIT);

  private final TypeTag tag;

  private BitCodec(TypeTag tag) {
    this.tag = tag;
  }

  @Override
  public TypeTag tag() {
    return tag;
  }

  @Override
  public void encodeText(byte[] v, int off, int end, IdentityBuffer out, int depth) {
    int bits = end - off;
    out.putU32(bits);
    out.ensure((bits + 7) / 8 * 2 + 2);
    int acc = 0;
    for (int i = 0; i < bits; i++) {
      byte b = v[off + i];
      if (b != '0' && b != '1') {
        throw Ascii.invalid(tag.sqlName(), v, off, end);
      }
      acc = acc << 1 | (b - '0');
      if ((i & 7) == 7) {
        out.putEscaped(acc);
        acc = 0;
      }
    }
    if ((bits & 7) != 0) {
      out.putEscaped(acc << (8 - (bits & 7)));
    }
    out.putEnd();
  }

  @Override
  public boolean supportsBinary() {
    return true;
  }

  /** Send format: i32 bit length, then the packed bits (already MSB first, zero padded). */
  @Override
  public void encodeBinary(byte[] v, int off, int end, IdentityBuffer out) {
    long bits =
        end - off >= 4
            ? ((v[off] & 0xFFL) << 24
                | (v[off + 1] & 0xFF) << 16
                | (v[off + 2] & 0xFF) << 8
                | (v[off + 3] & 0xFF))
            : -1;
    if (bits < 0 || (bits + 7) / 8 != end - off - 4) {
      throw Ascii.invalid(tag.sqlName() + " binary", v, off, end);
    }
    out.putU32((int) bits);
    out.putEscaped(v, off + 4, end - off - 4);
    out.putEnd();
  }

  /** Decoding: the bit length, then that many bits from the packed bytes as 0/1 text. */
  static String render(IdentityReader in) {
    long count = in.un(4);
    byte[] packed = in.unescaped();
    if (packed.length != (count + 7) / 8) {
      throw new RowIdentityException(
          "bit length " + count + " does not match " + packed.length + " bytes");
    }
    StringBuilder sb = new StringBuilder((int) count);
    for (int i = 0; i < count; i++) {
      sb.append((packed[i >> 3] >> (7 - (i & 7)) & 1) == 1 ? '1' : '0');
    }
    return sb.toString();
  }
}
