package io.trellara.source.capture.ddl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.v1.DdlEvent;
import io.trellara.source.capture.CaptureException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DdlMessageParserTest {

  private static DdlTargets targets(String json) {
    DdlTargets t = new DdlTargets();
    DdlMessageParser.parseInto(
        json.getBytes(StandardCharsets.UTF_8), 0x10, DdlEvent.newBuilder(), t);
    return t;
  }

  /** The trigger's JSON string for a relations value (backslash and quote escaped). */
  private static String json(String relations, String temporary) {
    return "{\"command_tag\":\"ALTER TABLE\",\"relations\":\""
        + relations.replace("\\", "\\\\").replace("\"", "\\\"")
        + "\",\"temporary\":\""
        + temporary
        + "\"}";
  }

  @Test
  void readsTheOwningRelationsAndTheTemporaryFlag() {
    DdlTargets t = targets(json("\"public\".\"orders\":16400,\"sales\".\"line\":0", "false"));
    assertThat(t.described).isTrue();
    assertThat(t.temporary).isFalse();
    assertThat(t.relations)
        .containsExactly(
            new OwningRelation("public", "orders", 16400), new OwningRelation("sales", "line", 0));
    assertThat(targets(json("\"pg_temp_3\".\"t_tmp\":16500", "true")).temporary).isTrue();
  }

  @Test
  void hostileNamesWithCommasDotsQuotesColonsAndBackslashesStayUnambiguous() {
    DdlTargets t =
        targets(
            json(
                "\"a,b\".\"c.d\":1,\"q\"\"uote\".\"x\"\":\"\"y\":2,\"back\\slash\".\"größe ✓\":4294967295",
                "false"));
    assertThat(t.relations)
        .containsExactly(
            new OwningRelation("a,b", "c.d", 1),
            new OwningRelation("q\"uote", "x\":\"y", 2),
            new OwningRelation("back\\slash", "größe ✓", 4294967295L));
  }

  @Test
  void anEmptyListNamesNothingAndRepeatsAreKeptOnce() {
    assertThat(targets(json("", "false")).relations).isEmpty();
    assertThat(targets(json("", "false")).described).isTrue();
    assertThat(targets(json("\"public\".\"t\":5,\"public\".\"t\":5", "false")).relations)
        .containsExactly(new OwningRelation("public", "t", 5));
  }

  private static String withSchemas(String schemas) {
    return "{\"command_tag\":\"ALTER TABLE\",\"schemas\":\""
        + schemas.replace("\\", "\\\\").replace("\"", "\\\"")
        + "\"}";
  }

  @Test
  void readsEachTablesColumnsAfterTheStatement() {
    DdlTargets t =
        targets(
            withSchemas(
                "\"public\".\"bulk\":16400:d|\"id\":23:-1:1:\"pg_catalog\".\"int4\""
                    + "|\"x,\"\"y\":1043:24:0:\"pg_catalog\".\"varchar\","
                    + "\"s\".\"empty\":7:f"));
    assertThat(t.shapes)
        .containsExactly(
            new RelationShape(
                "public",
                "bulk",
                16400,
                'd',
                java.util.List.of(
                    new RelationShape.Column("id", 23, -1, true, "pg_catalog", "int4"),
                    new RelationShape.Column("x,\"y", 1043, 24, false, "pg_catalog", "varchar"))),
            new RelationShape("s", "empty", 7, 'f', java.util.List.of()));
    assertThat(targets(withSchemas("")).shapes).isEmpty();
    assertThat(targets(json("", "false")).shapes).as("a trigger older than version 4").isEmpty();
  }

  @Test
  void aSchemasFieldThatIsNotTheTriggersFormatIsRefused() {
    for (String bad :
        new String[] {
          "\"public\".\"bulk\":16400",
          "\"public\".\"bulk\":16400:x",
          "\"public\".\"bulk\":16400:d|\"id\":23:-1:2:\"pg_catalog\".\"int4\"",
          "\"public\".\"bulk\":16400:d|\"id\":23:-1:1",
          "\"public\".\"bulk\":99999999999:d",
          "\"public\".\"bulk\":1:d;"
        }) {
      assertThatThrownBy(() -> targets(withSchemas(bad)))
          .as(bad)
          .isInstanceOf(CaptureException.class)
          .hasMessageContaining("schemas field");
    }
  }

  @Test
  void aMessageWithoutRelationsIsUndescribed() {
    DdlTargets t = targets("{\"command_tag\":\"DROP TABLE\",\"statement\":\"DROP TABLE t\"}");
    assertThat(t.described).isFalse();
    assertThat(t.relations).isEmpty();
    assertThat(t.temporary).isFalse();
  }

  @Test
  void refusesMalformedRelationsAndTemporaryNamingTheLsn() {
    for (String bad :
        new String[] {
          "public.orders:1",
          "\"public\".\"orders\"",
          "\"public\".\"orders\":",
          "\"public\".\"orders\":x",
          "\"public\".\"orders\":1,",
          "\"public\".\"orders:1",
          "\"p\"\"o\":1",
          "\"public\".\"orders\":1 ",
          "\"public\".\"orders\":99999999999",
          "\"public\".\"orders\":4294967296"
        }) {
      assertThatThrownBy(() -> targets(json(bad, "false")))
          .as(bad)
          .isInstanceOf(CaptureException.class)
          .hasMessageContaining("ddl_message_invalid")
          .hasMessageContaining("0/10");
    }
    assertThatThrownBy(() -> targets(json("", "yes"))).hasMessageContaining("temporary");
  }

  private static DdlEvent parse(String json) {
    return DdlMessageParser.parseInto(
            json.getBytes(StandardCharsets.UTF_8), 0x10, DdlEvent.newBuilder())
        .build();
  }

  @Test
  void parsesTheTriggersObjectWithSpacesAroundColons() {
    DdlEvent e =
        parse(
            "{\"command_tag\" : \"CREATE TABLE\", \"object_type\" : \"table\", \"object_identity\" :"
                + " \"public.t\", \"schema_name\" : \"public\", \"statement\" : \"CREATE TABLE t (id int)\","
                + " \"search_path\" : \"\\\"$user\\\", public\"}");
    assertThat(e.getCommandTag()).isEqualTo("CREATE TABLE");
    assertThat(e.getObjectType()).isEqualTo("table");
    assertThat(e.getObjectIdentity()).isEqualTo("public.t");
    assertThat(e.getSchemaName()).isEqualTo("public");
    assertThat(e.getStatement()).isEqualTo("CREATE TABLE t (id int)");
    assertThat(e.getSearchPath()).isEqualTo("\"$user\", public");
  }

  @Test
  void nullValuesLeaveFieldsEmptyAndUnknownKeysAreIgnored() {
    DdlEvent e =
        parse(
            "{\"command_tag\":\"DROP TABLE\",\"object_type\":null,\"object_identity\":null,"
                + "\"schema_name\":null,\"statement\":\"DROP TABLE t\",\"search_path\":\"public\",\"future\":\"x\"}");
    assertThat(e.getCommandTag()).isEqualTo("DROP TABLE");
    assertThat(e.getObjectType()).isEmpty();
    assertThat(e.getObjectIdentity()).isEmpty();
  }

  @Test
  void decodesEveryEscapeIncludingSurrogatePairs() {
    DdlEvent e =
        parse(
            "{\"command_tag\":\"COMMENT\",\"statement\":\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t"
                + "\\u00e9\\ud83d\\ude00\"}");
    assertThat(e.getStatement()).isEqualTo("a\"b\\c/d\b\f\n\r\té\uD83D\uDE00");
  }

  @Test
  void keepsNonAsciiTextFromUtf8() {
    assertThat(
            parse("{\"command_tag\":\"COMMENT\",\"statement\":\"COMMENT ON TABLE t IS 'größe ✓'\"}")
                .getStatement())
        .isEqualTo("COMMENT ON TABLE t IS 'größe ✓'");
  }

  @Test
  void refusesMalformedContentNamingTheLsn() {
    for (String bad :
        new String[] {
          "",
          "[]",
          "{\"command_tag\":\"X\"",
          "{\"command_tag\":1}",
          "{\"command_tag\":\"X\"} trailing",
          "{\"command_tag\":\"X\",\"command_tag\":\"Y\"}",
          "{\"command_tag\":\"bad \\x escape\"}",
          "{\"command_tag\":\"X\" \"statement\":\"s\"}",
          "{\"command_tag\":\"\\u12\"}",
          "{\"command_tag\":\"tab\there\"}"
        }) {
      assertThatThrownBy(() -> parse(bad))
          .as(bad)
          .isInstanceOf(CaptureException.class)
          .hasMessageContaining("ddl_message_invalid")
          .hasMessageContaining("0/10");
    }
  }

  @Test
  void refusesAMissingOrBlankCommandTag() {
    assertThatThrownBy(() -> parse("{\"statement\":\"x\"}")).hasMessageContaining("command_tag");
    assertThatThrownBy(() -> parse("{\"command_tag\":\" \"}")).hasMessageContaining("command_tag");
    assertThatThrownBy(() -> parse("{\"command_tag\":null}")).hasMessageContaining("command_tag");
  }
}
