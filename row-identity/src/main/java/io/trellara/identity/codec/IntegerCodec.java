package io.trellara.identity.codec;

import io.trellara.identity.TypeTag;

/** int2/int4/int8: sign bit flipped, big-endian. oid: unsigned big-endian u32. */
final class IntegerCodec implements FieldCodec {
  static final IntegerCodec INT2 = new IntegerCodec(TypeTag.INT2, Short.MIN_VALUE, Short.MAX_VALUE);
  static final IntegerCodec INT4 =
      new IntegerCodec(TypeTag.INT4, Integer.MIN_VALUE, Integer.MAX_VALUE);
  static final IntegerCodec INT8 = new IntegerCodec(TypeTag.INT8, Long.MIN_VALUE, Long.MAX_VALUE);
  static final IntegerCodec OID = new IntegerCodec(TypeTag.OID, 0, 0xFFFF_FFFFL);

  private final TypeTag tag;
  private final long min;
  private final long max;

  private IntegerCodec(TypeTag tag, long min, long max) {
    this.tag = tag;
    this.min = min;
    this.max = max;
  }

  @Override
  public TypeTag tag() {
    return tag;
  }

  long parse(byte[] v, int off, int end) {
    return Ascii.parseLong(v, off, end, min, max, tag.sqlName());
  }

  @Override
  public void encodeText(byte[] v, int off, int end, IdentityBuffer out, int depth) {
    write(parse(v, off, end), out);
  }

  void write(long value, IdentityBuffer out) {
    switch (tag) {
      case INT2 -> out.putU16((int) value ^ 0x8000);
      case INT4 -> out.putI32((int) value);
      case INT8 -> out.putI64(value);
      default -> out.putU32((int) value);
    }
  }

  @Override
  public boolean supportsBinary() {
    return true;
  }

  @Override
  public void encodeBinary(byte[] v, int off, int end, IdentityBuffer out) {
    int width = tag.fixedWidth();
    if (end - off != width) {
      throw Ascii.invalid(tag.sqlName() + " binary", v, off, end);
    }
    out.ensure(width);
    out.put((tag == TypeTag.OID ? v[off] : v[off] ^ 0x80));
    out.putBytes(v, off + 1, width - 1);
  }

  /** Decoding: the sign bit flipped back (oid is unsigned). */
  static String render(TypeTag tag, IdentityReader in) {
    return switch (tag) {
      case INT2 -> Integer.toString((short) (in.un(2) ^ 0x8000));
      case INT4 -> Integer.toString(in.i32());
      case INT8 -> Long.toString(in.i64());
      default -> Long.toString(in.un(4));
    };
  }
}
