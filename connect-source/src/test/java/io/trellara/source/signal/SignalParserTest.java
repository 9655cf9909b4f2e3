package io.trellara.source.signal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SignalParserTest {

  @Test
  void aSnapshotSignalNamesItsTablesEachWithAnOptionalRowFilter() throws Exception {
    Signal s =
        SignalParser.parse(
            "ad-hoc-1",
            " Snapshot ",
            "public.orders WHERE region = 'eu' AND (id > 5)\n\n  Accounts\n\"My Schema\".\"Odd \"\"T\"\"\"");
    assertThat(s.id()).isEqualTo("ad-hoc-1");
    assertThat(s.action()).isEqualTo(Signal.Action.SNAPSHOT);
    assertThat(s.tables())
        .containsExactly(
            new Signal.TableRequest("public", "orders", "region = 'eu' AND (id > 5)"),
            new Signal.TableRequest("public", "accounts", null),
            new Signal.TableRequest("My Schema", "Odd \"T\"", null));
  }

  @Test
  void theWhereKeywordIsCaseInsensitiveAndTheFilterKeepsItsText() throws Exception {
    Signal s = SignalParser.parse("x", "snapshot", "shop.items   where  note <> 'WHERE'");
    assertThat(s.tables())
        .containsExactly(new Signal.TableRequest("shop", "items", "note <> 'WHERE'"));
  }

  @Test
  void stopPauseAndResumeNeedNoTables() throws Exception {
    assertThat(SignalParser.parse("a", "stop-snapshot", null).action())
        .isEqualTo(Signal.Action.STOP_SNAPSHOT);
    assertThat(SignalParser.parse("a", "pause-snapshot", "").action())
        .isEqualTo(Signal.Action.PAUSE_SNAPSHOT);
    Signal r = SignalParser.parse("a", "RESUME-SNAPSHOT", "public.t");
    assertThat(r.action()).isEqualTo(Signal.Action.RESUME_SNAPSHOT);
    assertThat(r.tables()).containsExactly(new Signal.TableRequest("public", "t", null));
  }

  @Test
  void malformedSignalsAreRefusedNamingTheRule() {
    assertMalformed(null, "snapshot", "t", "no id");
    assertMalformed("  ", "snapshot", "t", "no id");
    assertMalformed("x".repeat(201), "snapshot", "t", "longer than 200");
    assertMalformed("a", null, "t", "no type");
    assertMalformed("a", "execute-snapshot", "t", "unknown type 'execute-snapshot'");
    assertMalformed("a", "snapshot", null, "names no table");
    assertMalformed("a", "snapshot", " \n ", "names no table");
    assertMalformed("a", "snapshot", "t\npublic.t", "named twice");
    assertMalformed("a", "snapshot", "t WHERE", "unexpected text");
    assertMalformed("a", "snapshot", "t WHERE   ", "unexpected text");
    assertMalformed("a", "snapshot", "t WHERE id = 1; DROP TABLE t", "';', '--' or '/*'");
    assertMalformed("a", "snapshot", "t WHERE id = 1 -- x", "';', '--' or '/*'");
    assertMalformed("a", "snapshot", "t WHERE id = 1 /* x */", "';', '--' or '/*'");
    assertMalformed("a", "snapshot", "t WHERE (id = 1", "unbalanced");
    assertMalformed("a", "snapshot", "t WHERE id = 1)) OR ((true", "unbalanced");
    assertMalformed("a", "snapshot", "t.u.v", "unexpected text");
    assertMalformed("a", "snapshot", "public.\"open", "unterminated");
    assertMalformed("a", "snapshot", "\"\".t", "empty quoted");
    assertMalformed("a", "snapshot", "1table", "expected a table name");
    assertMalformed("a", "snapshot", "t junk", "unexpected text");
    assertMalformed("a", "stop-snapshot", "t WHERE id > 1", "only a snapshot signal");
    assertMalformed("a", "snapshot", "x".repeat(0) + "t WHERE " + "a".repeat(4001), "4000");
  }

  @Test
  void theSignalTableSettingTakesOneTableName() throws Exception {
    assertThat(SignalParser.tableName(" trellara.Signals "))
        .isEqualTo(new Signal.TableRequest("trellara", "signals", null));
    assertThat(SignalParser.tableName("signals"))
        .isEqualTo(new Signal.TableRequest("public", "signals", null));
    assertThatThrownBy(() -> SignalParser.tableName("a WHERE b"))
        .isInstanceOf(MalformedSignalException.class);
    assertThatThrownBy(() -> SignalParser.tableName(""))
        .isInstanceOf(MalformedSignalException.class);
  }

  private static void assertMalformed(String id, String type, String data, String reason) {
    assertThatThrownBy(() -> SignalParser.parse(id, type, data))
        .isInstanceOf(MalformedSignalException.class)
        .hasMessageContaining(reason);
  }
}
