package io.trellara.identity.codec;

import io.trellara.identity.DecodedField;
import io.trellara.identity.RowIdentityEncoder;
import io.trellara.identity.RowIdentityException;
import io.trellara.identity.TypeTag;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads framed fields back (tag, state, payload; nested tuples) and hands each payload to the codec
 * of its tag, which renders it as readable text in a form its encoder accepts again (so decode then
 * encode round-trips to the same bytes). Inspection only: not a hot path.
 */
public final class FieldRenderer {
  private final IdentityReader in;

  public FieldRenderer(byte[] b, int pos, int end) {
    this(new IdentityReader(b, pos, end));
  }

  private FieldRenderer(IdentityReader in) {
    this.in = in;
  }

  public int position() {
    return in.position();
  }

  /** The bytes under this renderer, for structural codecs that read their own framing. */
  IdentityReader in() {
    return in;
  }

  /** Field count u32 (at most 1024, checked before allocating), fields, tuple end FF. */
  public List<DecodedField> tuple(int depth) {
    long count = in.un(4);
    if (count > RowIdentityEncoder.MAX_FIELDS) {
      throw new RowIdentityException(
          "field count " + count + " exceeds " + RowIdentityEncoder.MAX_FIELDS);
    }
    List<DecodedField> fields = new ArrayList<>((int) count);
    for (int i = 0; i < count; i++) {
      try {
        fields.add(field(depth));
      } catch (RowIdentityException e) {
        throw e.inField(i, "decode");
      }
    }
    if (in.u8() != Structural.TUPLE_END) {
      throw new RowIdentityException("missing tuple end 0xFF at byte " + (in.position() - 1));
    }
    return fields;
  }

  public DecodedField field(int depth) {
    TypeTag tag = TypeTag.fromCode(in.u8());
    int state = in.u8();
    if (state == Structural.STATE_NULL) {
      return new DecodedField(tag, true, null, List.of());
    }
    if (state != Structural.STATE_VALUE) {
      throw new RowIdentityException("invalid field state 0x" + Integer.toHexString(state));
    }
    if (tag.structural()) {
      return structural(tag, depth);
    }
    return new DecodedField(tag, false, scalar(tag), List.of());
  }

  /**
   * A count of nested items, checked against the bytes left before anything is allocated for them.
   */
  int count() {
    long count = in.un(4);
    if (count > in.remaining()) {
      throw in.truncated();
    }
    return (int) count;
  }

  void expectTupleEnd() {
    if (in.u8() != Structural.TUPLE_END) {
      throw new RowIdentityException("missing tuple end 0xFF");
    }
  }

  private String scalar(TypeTag tag) {
    return switch (tag) {
      case BOOL -> BoolCodec.render(in);
      case INT2, INT4, INT8, OID -> IntegerCodec.render(tag, in);
      case FLOAT4, FLOAT8 -> FloatCodec.render(tag, in);
      case NUMERIC -> NumericCodec.render(in);
      case TEXT, VARCHAR, BPCHAR, ENUM -> StringCodec.render(in);
      case BYTEA -> ByteaCodec.render(in);
      case UUID -> UuidCodec.render(in);
      case DATE, TIME, TIMESTAMP, TIMESTAMPTZ, TIMETZ -> DateTimeCodec.render(tag, in);
      case INTERVAL -> IntervalCodec.render(in);
      case INET, CIDR, MACADDR, MACADDR8 -> NetworkCodec.render(tag, in);
      case BIT, VARBIT -> BitCodec.render(in);
      default -> throw new RowIdentityException("no renderer for " + tag);
    };
  }

  /** u32 byte length, then the value, which must fill exactly that length. */
  private DecodedField structural(TypeTag tag, int depth) {
    int inner = Structural.enter(depth, tag.sqlName());
    FieldRenderer nested = new FieldRenderer(in.nested(in.un(4)));
    DecodedField f =
        switch (tag) {
          case ARRAY -> ArrayCodec.decode(nested, inner);
          case RANGE -> RangeCodec.decode(nested, inner);
          case MULTIRANGE -> MultirangeCodec.decode(nested, inner);
          case JSONB ->
              new DecodedField(tag, false, JsonbCodec.render(nested.in, inner), List.of());
          case COMPOSITE -> CompositeCodec.decode(nested, inner);
          case IDENTITY -> IdentityCodec.decode(nested.in);
          default -> throw new RowIdentityException("no renderer for " + tag);
        };
    if (nested.in.remaining() != 0) {
      throw new RowIdentityException(tag.sqlName() + " length does not match its content");
    }
    return f;
  }
}
