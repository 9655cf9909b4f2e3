package io.trellara.identity;

import java.util.List;

/**
 * One decoded field, for inspection: its type tag, NULL-ness, the value rendered as readable text
 * (null for SQL NULL) and, for structural values, the decoded nested fields (array elements, range
 * bounds, multirange ranges, composite fields, child identity fields).
 */
public record DecodedField(TypeTag tag, boolean isNull, String value, List<DecodedField> children) {
  public DecodedField {
    children = List.copyOf(children);
  }

  @Override
  public String toString() {
    return tag.sqlName() + " " + (isNull ? "NULL" : value);
  }
}
