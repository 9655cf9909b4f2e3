package io.trellara.identity.codec;

import io.trellara.identity.TypeTag;
import java.nio.charset.StandardCharsets;

/**
 * text, varchar, enum labels: the database-encoding (UTF-8) bytes, escaped and ended by 00 00.
 * bpchar: trailing spaces removed first, as bpchar comparison ignores them. Text and binary formats
 * of these types are the same bytes.
 */
final class StringCodec implements FieldCodec {
  static final StringCodec TEXT = new StringCodec(TypeTag.TEXT);
  static final StringCodec VARCHAR = new StringCodec(TypeTag.VARCHAR);
  static final StringCodec BPCHAR = new StringCodec(TypeTag.BPCHAR);
  static final StringCodec ENUM = new StringCodec(TypeTag.ENUM);

  private final TypeTag tag;

  private StringCodec(TypeTag tag) {
    this.tag = tag;
  }

  @Override
  public TypeTag tag() {
    return tag;
  }

  @Override
  public void encodeText(byte[] v, int off, int end, IdentityBuffer out, int depth) {
    if (tag == TypeTag.BPCHAR) {
      while (end > off && v[end - 1] == ' ') {
        end--;
      }
    }
    out.putEscaped(v, off, end - off);
    out.putEnd();
  }

  @Override
  public boolean supportsBinary() {
    return true;
  }

  @Override
  public void encodeBinary(byte[] v, int off, int end, IdentityBuffer out) {
    encodeText(v, off, end, out, 0);
  }

  /**
   * Decoding: the unescaped UTF-8 bytes (bpchar without the trailing spaces the encoding dropped).
   */
  static String render(IdentityReader in) {
    return new String(in.unescaped(), StandardCharsets.UTF_8);
  }
}
