package io.trellara.source.capture.ddl;

import io.trellara.protocol.Lsn;
import io.trellara.source.capture.CaptureException;
import java.util.List;

/**
 * Decodes the event trigger's {@code relations} field: entries {@code "schema"."table":oid}
 * separated by commas, both names always double-quoted with embedded quotes doubled (any character,
 * including commas, dots and quotes, may appear in a name), oid a decimal pg_class OID or 0. The
 * empty string lists nothing. Repeated entries are kept once.
 */
final class RelationList {

  private final String text;
  private final long lsn;
  private int pos;

  private RelationList(String text, long lsn) {
    this.text = text;
    this.lsn = lsn;
  }

  /** Appends the relations {@code text} lists to {@code into}, skipping repeats. */
  static void decodeInto(String text, long lsn, List<OwningRelation> into) {
    if (text.isEmpty()) {
      return;
    }
    RelationList r = new RelationList(text, lsn);
    while (true) {
      OwningRelation next = r.entry();
      if (!into.contains(next)) {
        into.add(next);
      }
      if (r.pos == text.length()) {
        return;
      }
      r.expect(',');
    }
  }

  private OwningRelation entry() {
    String schema = quoted();
    expect('.');
    String table = quoted();
    expect(':');
    int start = pos;
    while (pos < text.length() && text.charAt(pos) >= '0' && text.charAt(pos) <= '9') {
      pos++;
    }
    if (pos == start || pos - start > 10) {
      throw invalid("expected an OID at offset " + start);
    }
    long oid = Long.parseLong(text, start, pos, 10);
    if (oid > 0xFFFF_FFFFL) {
      throw invalid("OID " + oid + " out of range");
    }
    return new OwningRelation(schema, table, oid);
  }

  private String quoted() {
    expect('"');
    StringBuilder sb = new StringBuilder();
    while (true) {
      if (pos >= text.length()) {
        throw invalid("unterminated name");
      }
      char c = text.charAt(pos++);
      if (c == '"') {
        if (pos < text.length() && text.charAt(pos) == '"') {
          sb.append('"');
          pos++;
        } else {
          return sb.toString();
        }
      } else {
        sb.append(c);
      }
    }
  }

  private void expect(char c) {
    if (pos >= text.length() || text.charAt(pos) != c) {
      throw invalid("expected '" + c + "' at offset " + pos);
    }
    pos++;
  }

  private CaptureException invalid(String what) {
    return new CaptureException(
        "ddl_message_invalid",
        "the DDL message at LSN "
            + Lsn.format(lsn)
            + " has a relations field that is not a list of \"schema\".\"table\":oid entries: "
            + what);
  }
}
