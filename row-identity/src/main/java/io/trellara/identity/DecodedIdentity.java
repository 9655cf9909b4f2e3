package io.trellara.identity;

import java.util.List;

/** A decoded identity: version, domain and its fields in order. */
public record DecodedIdentity(int version, RowIdentityDomain domain, List<DecodedField> fields) {
  public DecodedIdentity {
    fields = List.copyOf(fields);
  }

  /** One line per field: "index<TAB>type<TAB>value" (NULL for SQL NULL), after a header line. */
  public String render() {
    StringBuilder sb = new StringBuilder();
    sb.append("version ")
        .append(version)
        .append(", domain ")
        .append(domain)
        .append(", ")
        .append(fields.size())
        .append(fields.size() == 1 ? " field" : " fields");
    for (int i = 0; i < fields.size(); i++) {
      DecodedField f = fields.get(i);
      sb.append('\n')
          .append(i)
          .append('\t')
          .append(f.tag().sqlName())
          .append('\t')
          .append(f.isNull() ? "NULL" : f.value());
    }
    return sb.toString();
  }
}
