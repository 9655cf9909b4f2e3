package io.trellara.identity.codec;

import io.trellara.identity.DecodedField;
import io.trellara.identity.RowIdentityException;
import io.trellara.identity.TypeTag;
import java.util.List;

/**
 * Composites: u32 BE byte length, then the nested tuple: field count u32, the fields (tag, state,
 * payload; an empty unquoted position is NULL), tuple end FF. Recurses into any supported field
 * type.
 */
final class CompositeCodec implements FieldCodec {
  private final FieldCodec[] fields;

  CompositeCodec(FieldCodec[] fields) {
    this.fields = fields;
  }

  @Override
  public TypeTag tag() {
    return TypeTag.COMPOSITE;
  }

  @Override
  public void encodeText(byte[] v, int off, int end, IdentityBuffer out, int depth) {
    int inner = Structural.enter(depth, "composite");
    Structural.Cursor c = new Structural.Cursor(v, off, end, "composite");
    c.skipSpace();
    c.expect('(');
    int slot = out.openLength();
    out.putU32(fields.length);
    for (int i = 0; i < fields.length; i++) {
      byte[] e = c.element(i == fields.length - 1 ? ")" : ",", "", true);
      if (e == null) {
        Structural.writeNull(fields[i], out);
      } else {
        try {
          Structural.writeField(fields[i], e, 0, e.length, out, inner);
        } catch (RowIdentityException ex) {
          throw ex.inField(i, fields[i].tag().sqlName());
        }
      }
      c.expect(i == fields.length - 1 ? ')' : ',');
    }
    c.skipSpace();
    if (c.pos != end) {
      throw c.invalid();
    }
    out.put(Structural.TUPLE_END);
    out.closeLength(slot);
  }

  /** Decoding: the nested tuple, rendered as a row literal (a NULL field is an empty position). */
  static DecodedField decode(FieldRenderer r, int depth) {
    List<DecodedField> fields = r.tuple(depth);
    StringBuilder sb = new StringBuilder("(");
    for (int i = 0; i < fields.size(); i++) {
      DecodedField f = fields.get(i);
      sb.append(i == 0 ? "" : ",");
      if (!f.isNull()) {
        sb.append(f.value().isEmpty() ? "\"\"" : Structural.quote(f.value(), "(),\"\\ ", false));
      }
    }
    return new DecodedField(TypeTag.COMPOSITE, false, sb.append(')').toString(), fields);
  }
}
