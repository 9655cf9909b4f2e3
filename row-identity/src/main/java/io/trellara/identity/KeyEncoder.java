package io.trellara.identity;

import io.trellara.identity.codec.FieldCodec;
import io.trellara.identity.codec.IdentityBuffer;
import io.trellara.identity.codec.Structural;
import java.nio.charset.StandardCharsets;

/**
 * A resolved per-relation encoder: header, one framed field per column, tuple end. Holds one
 * reusable scratch buffer, so it is not thread-safe: one instance per relation per thread. Two
 * styles of use: whole rows ({@link #encode(byte[][])}), or field by field straight from a
 * decoder's buffer ({@link #begin()}, {@link #text}/{@link #binary}/{@link #nullField()}, {@link
 * #finish()}).
 */
public final class KeyEncoder {
  /** pgoutput TupleData kinds. */
  public static final byte FORMAT_TEXT = 't';

  public static final byte FORMAT_BINARY = 'b';

  private final RowIdentityDomain domain;
  private final FieldCodec[] codecs;
  private final IdentityBuffer buffer = new IdentityBuffer(128);
  private int next = -1;

  KeyEncoder(RowIdentityDomain domain, FieldCodec[] codecs) {
    this.domain = domain;
    this.codecs = codecs;
  }

  public RowIdentityDomain domain() {
    return domain;
  }

  public int fieldCount() {
    return codecs.length;
  }

  /** Type tag of column {@code i}. */
  public TypeTag tag(int i) {
    return codecs[i].tag();
  }

  /** Whether column {@code i} accepts pgoutput binary values. */
  public boolean supportsBinary(int i) {
    return codecs[i].supportsBinary();
  }

  /** Encode one row of pgoutput text values (UTF-8 bytes; null is SQL NULL) into fresh bytes. */
  public byte[] encode(byte[][] textValues) {
    checkArity(textValues.length);
    begin();
    for (byte[] v : textValues) {
      if (v == null) {
        nullField();
      } else {
        text(v, 0, v.length);
      }
    }
    return finish();
  }

  /**
   * Encode one row whose values are in text or binary format, per {@code formats[i]} ('t' or 'b').
   */
  public byte[] encode(byte[][] values, byte[] formats) {
    checkArity(values.length);
    begin();
    for (int i = 0; i < values.length; i++) {
      byte[] v = values[i];
      if (v == null) {
        nullField();
      } else if (formats[i] == FORMAT_BINARY) {
        binary(v, 0, v.length);
      } else if (formats[i] == FORMAT_TEXT) {
        text(v, 0, v.length);
      } else {
        // e.g. pgoutput 'u' (unchanged TOASTed value): the caller must supply the real value
        next = -1;
        throw new RowIdentityException(
            "field "
                + i
                + ": value kind '"
                + (char) formats[i]
                + "' has no bytes to encode; supply the full text or binary value");
      }
    }
    return finish();
  }

  /** Convenience for Strings (allocates the UTF-8 bytes). */
  public byte[] encodeStrings(String... textValues) {
    byte[][] bytes = new byte[textValues.length][];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = textValues[i] == null ? null : textValues[i].getBytes(StandardCharsets.UTF_8);
    }
    return encode(bytes);
  }

  private void checkArity(int n) {
    if (n != codecs.length) {
      throw new RowIdentityException("expected " + codecs.length + " identity values, got " + n);
    }
  }

  /** Start a row; follow with exactly {@link #fieldCount()} field calls, then a finish call. */
  public KeyEncoder begin() {
    buffer.reset();
    buffer.put(RowIdentityVersion.V2);
    buffer.put(domain.code());
    buffer.putU32(codecs.length);
    next = 0;
    return this;
  }

  public KeyEncoder nullField() {
    FieldCodec c = nextCodec();
    buffer.put(c.tag().code());
    buffer.put(Structural.STATE_NULL);
    return this;
  }

  public KeyEncoder text(byte[] v, int off, int len) {
    FieldCodec c = nextCodec();
    buffer.put(c.tag().code());
    buffer.put(Structural.STATE_VALUE);
    try {
      c.encodeText(v, off, off + len, buffer, 0);
    } catch (RowIdentityException e) {
      throw fail(e, c);
    } catch (RuntimeException e) {
      throw fail(new RowIdentityException("invalid " + c.tag().sqlName() + " text", e), c);
    }
    return this;
  }

  public KeyEncoder binary(byte[] v, int off, int len) {
    FieldCodec c = nextCodec();
    buffer.put(c.tag().code());
    buffer.put(Structural.STATE_VALUE);
    try {
      c.encodeBinary(v, off, off + len, buffer);
    } catch (RowIdentityException e) {
      throw fail(e, c);
    }
    return this;
  }

  private RowIdentityException fail(RowIdentityException e, FieldCodec c) {
    int field = next - 1;
    next = -1;
    return e.inField(field, c.tag().sqlName());
  }

  private FieldCodec nextCodec() {
    if (next < 0 || next >= codecs.length) {
      throw new RowIdentityException(
          next < 0 ? "begin() not called" : "more values than identity fields");
    }
    return codecs[next++];
  }

  private void end() {
    if (next != codecs.length) {
      throw new RowIdentityException(
          "row ended after " + next + " of " + codecs.length + " identity fields");
    }
    buffer.put(0xFF);
    next = -1;
  }

  /** Finish the row and return its identity as fresh bytes (the only allocation per row). */
  public byte[] finish() {
    end();
    return buffer.toByteArray();
  }

  /** Finish the row into a caller buffer; returns the identity length. */
  public int finishInto(byte[] dest, int destOffset) {
    end();
    int n = buffer.length();
    if (dest.length - destOffset < n) {
      throw new RowIdentityException(
          "destination has " + (dest.length - destOffset) + " bytes; identity needs " + n);
    }
    System.arraycopy(buffer.array(), 0, dest, destOffset, n);
    return n;
  }
}
