package io.trellara.source.signal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KafkaSignalValueTest {

  @Test
  void theSignalTablesColumnsAsJsonReadAsTheSignalTableReadsThem() throws Exception {
    Signal s =
        KafkaSignalValue.parse(
            "{\"id\": \"reload-1\", \"type\": \"snapshot\","
                + " \"data\": \"public.orders\\n\\\"My S\\\".t WHERE a > 1\"}");
    assertThat(s.id()).isEqualTo("reload-1");
    assertThat(s.action()).isEqualTo(Signal.Action.SNAPSHOT);
    assertThat(s.tables())
        .containsExactly(
            new Signal.TableRequest("public", "orders", null),
            new Signal.TableRequest("My S", "t", "a > 1"));
  }

  @Test
  void debeziumsExecuteSnapshotIsASnapshotOfItsDataCollections() throws Exception {
    Signal s =
        KafkaSignalValue.parse(
            "{\"id\":\"d-1\",\"type\":\"execute-snapshot\",\"data\":{\"data-collections\":"
                + "[\"public.orders\",\"shop.items\"],\"type\":\"INCREMENTAL\","
                + "\"additional-conditions\":[{\"data-collection\":\"shop.items\","
                + "\"filter\":\"id > 10\"}]}}");
    assertThat(s.action()).isEqualTo(Signal.Action.SNAPSHOT);
    assertThat(s.tables())
        .containsExactly(
            new Signal.TableRequest("public", "orders", null),
            new Signal.TableRequest("shop", "items", "id > 10"));
    Signal stop =
        KafkaSignalValue.parse(
            "{\"id\":\"d-2\",\"type\":\"stop-snapshot\",\"data\":{\"type\":\"incremental\"}}");
    assertThat(stop.action()).isEqualTo(Signal.Action.STOP_SNAPSHOT);
    assertThat(stop.tables()).isEmpty();
  }

  @Test
  void stopPauseAndResumeTakeNoData() throws Exception {
    assertThat(KafkaSignalValue.parse("{\"id\":\"a\",\"type\":\"pause-snapshot\"}").action())
        .isEqualTo(Signal.Action.PAUSE_SNAPSHOT);
    assertThat(
            KafkaSignalValue.parse("{\"id\":\"a\",\"type\":\"resume-snapshot\",\"data\":null}")
                .action())
        .isEqualTo(Signal.Action.RESUME_SNAPSHOT);
  }

  @Test
  void theSignalParsersRulesApplyToKafkaSignalsToo() {
    assertThatThrownBy(() -> KafkaSignalValue.parse("{\"type\":\"snapshot\",\"data\":\"t\"}"))
        .isInstanceOf(MalformedSignalException.class)
        .hasMessageContaining("no id");
    assertThatThrownBy(
            () -> KafkaSignalValue.parse("{\"id\":\"x\",\"type\":\"explode\",\"data\":\"t\"}"))
        .hasMessageContaining("unknown type");
    assertThatThrownBy(
            () ->
                KafkaSignalValue.parse(
                    "{\"id\":\"x\",\"type\":\"snapshot\",\"data\":\"t WHERE a; DROP TABLE t\"}"))
        .hasMessageContaining("';'");
    assertThatThrownBy(() -> KafkaSignalValue.parse("{\"id\":\"x\",\"type\":\"snapshot\"}"))
        .hasMessageContaining("names no table");
  }

  @Test
  void valuesThatAreNotASignalObjectAreRefusedWithTheReason() {
    String[][] cases = {
      {"not json", "not JSON"},
      {"[1, 2]", "not a JSON object"},
      {"{\"id\": 5, \"type\": \"snapshot\"}", "id is not a JSON string"},
      {"{\"id\": \"a\", \"type\": \"snapshot\", \"data\": 7}", "neither text nor an object"},
      {"{\"id\": \"a\", \"id\": \"b\"}", "given twice"},
      {"{\"id\": \"a\"} trailing", "unexpected text"},
      {"{\"id\": \"a\", \"type\": \"snapshot\", \"data\": \"t\"", "was expected"},
      {"{\"id\": \"a\\q\"}", "unknown escape"},
      {
        "{\"id\":\"a\",\"type\":\"execute-snapshot\",\"data\":{\"data-collections\":[\"t\",\"t\"]}}",
        "twice"
      },
      {
        "{\"id\":\"a\",\"type\":\"execute-snapshot\",\"data\":{\"data-collections\":[\"t\"],"
            + "\"additional-conditions\":[{\"data-collection\":\"u\",\"filter\":\"x\"}]}}",
        "not in data-collections"
      },
      {"[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]", "nested deeper"},
    };
    for (String[] c : cases) {
      assertThatThrownBy(() -> KafkaSignalValue.parse(c[0]))
          .as(c[0])
          .isInstanceOf(MalformedSignalException.class)
          .hasMessageContaining(c[1]);
    }
  }

  @Test
  void anEmptyOrOversizedValueIsRefusedBeforeItIsParsed() {
    assertThatThrownBy(() -> KafkaSignalValue.parse((byte[]) null))
        .hasMessageContaining("no value");
    byte[] big = new byte[KafkaSignalValue.MAX_VALUE_BYTES + 1];
    assertThatThrownBy(() -> KafkaSignalValue.parse(big)).hasMessageContaining("longer than");
    byte[] ok =
        "{\"id\":\"\\u00e9t\u00e9\",\"type\":\"stop-snapshot\"}".getBytes(StandardCharsets.UTF_8);
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> KafkaSignalValue.parse(ok)))
        .isNull();
  }
}
