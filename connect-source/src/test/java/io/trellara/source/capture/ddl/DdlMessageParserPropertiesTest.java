package io.trellara.source.capture.ddl;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.v1.DdlEvent;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

class DdlMessageParserPropertiesTest {

  /**
   * What PostgreSQL's json escaping does: quote, backslash and control characters; the rest
   * verbatim.
   */
  private static String json(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append("\\u00")
                .append(Character.forDigit(c >> 4, 16))
                .append(Character.forDigit(c & 15, 16));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.append('"').toString();
  }

  @Property(tries = 300)
  void everyStatementAndSearchPathSurvivesTheRoundTrip(
      @ForAll String statement, @ForAll String searchPath) {
    // unpaired surrogates cannot travel as UTF-8; PostgreSQL never produces them
    String stmt = new String(statement.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
    String path = new String(searchPath.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
    String content =
        "{\"command_tag\" : \"CREATE TABLE\", \"object_type\" : null, \"statement\" : "
            + json(stmt)
            + ", \"search_path\" : "
            + json(path)
            + "}";
    DdlEvent e =
        DdlMessageParser.parseInto(
                content.getBytes(StandardCharsets.UTF_8), 1, DdlEvent.newBuilder())
            .build();
    assertThat(e.getStatement()).isEqualTo(stmt);
    assertThat(e.getSearchPath()).isEqualTo(path);
    assertThat(e.getObjectType()).isEmpty();
  }
}
