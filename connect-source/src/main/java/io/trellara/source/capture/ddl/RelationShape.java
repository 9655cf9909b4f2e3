package io.trellara.source.capture.ddl;

import io.trellara.protocol.Lsn;
import io.trellara.source.capture.CaptureException;
import java.util.ArrayList;
import java.util.List;

/**
 * One table as the event trigger read its catalog at the end of a DDL statement (the {@code
 * schemas} field of trigger version 4): what the next pgoutput Relation message of the table will
 * say, so the DDL's own transaction can carry the table's new schema version. Entries {@code
 * "schema"."table":oid:replident} then one {@code |"column":typeoid:typmod:key:"typeschema"."type"}
 * per column, entries separated by commas, names quoted as in {@link RelationList}.
 *
 * @param replicaIdentity pg_class.relreplident: {@code d}, {@code n}, {@code f} or {@code i}
 */
public record RelationShape(
    String schema, String table, long oid, char replicaIdentity, List<Column> columns) {

  /**
   * A column: its type OID and typmod as pg_attribute has them, whether pgoutput flags it as
   * replica identity, and the schema and name of its base type (what a Type message names).
   */
  public record Column(
      String name, long typeOid, int typeModifier, boolean key, String typeSchema, String type) {}

  /** Appends the shapes {@code text} lists to {@code into}; "" lists none. */
  static void decodeInto(String text, long lsn, List<RelationShape> into) {
    if (text.isEmpty()) {
      return;
    }
    Reader r = new Reader(text, lsn);
    while (true) {
      into.add(r.shape());
      if (r.pos == text.length()) {
        return;
      }
      r.expect(',');
    }
  }

  private static final class Reader {
    private final String text;
    private final long lsn;
    private int pos;

    Reader(String text, long lsn) {
      this.text = text;
      this.lsn = lsn;
    }

    RelationShape shape() {
      String schema = quoted();
      expect('.');
      String table = quoted();
      expect(':');
      long oid = number(0xFFFF_FFFFL, false);
      expect(':');
      if (pos >= text.length() || "dnfi".indexOf(text.charAt(pos)) < 0) {
        throw invalid("expected a replica identity (d, n, f or i) at offset " + pos);
      }
      char identity = text.charAt(pos++);
      List<Column> columns = new ArrayList<>();
      while (pos < text.length() && text.charAt(pos) == '|') {
        pos++;
        String name = quoted();
        expect(':');
        long typeOid = number(0xFFFF_FFFFL, false);
        expect(':');
        int typmod = (int) number(Integer.MAX_VALUE, true);
        expect(':');
        long key = number(1, false);
        expect(':');
        String typeSchema = quoted();
        expect('.');
        String type = quoted();
        columns.add(new Column(name, typeOid, typmod, key == 1, typeSchema, type));
      }
      return new RelationShape(schema, table, oid, identity, List.copyOf(columns));
    }

    private long number(long max, boolean signed) {
      boolean negative = signed && pos < text.length() && text.charAt(pos) == '-';
      if (negative) {
        pos++;
      }
      int start = pos;
      while (pos < text.length() && text.charAt(pos) >= '0' && text.charAt(pos) <= '9') {
        pos++;
      }
      if (pos == start || pos - start > 10) {
        throw invalid("expected a number at offset " + start);
      }
      long v = Long.parseLong(text, start, pos, 10);
      if (v > max) {
        throw invalid(v + " out of range at offset " + start);
      }
      return negative ? -v : v;
    }

    private String quoted() {
      expect('"');
      StringBuilder sb = new StringBuilder();
      while (true) {
        if (pos >= text.length()) {
          throw invalid("unterminated name");
        }
        char c = text.charAt(pos++);
        if (c != '"') {
          sb.append(c);
        } else if (pos < text.length() && text.charAt(pos) == '"') {
          sb.append('"');
          pos++;
        } else {
          return sb.toString();
        }
      }
    }

    void expect(char c) {
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
              + " has a schemas field that is not a list of table descriptions: "
              + what);
    }
  }
}
