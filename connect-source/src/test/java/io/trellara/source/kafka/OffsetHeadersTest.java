package io.trellara.source.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OffsetHeadersTest {
  static final SourcePosition POSITION =
      new SourcePosition("0/16B3748", 0x16B3790L, "771", "7390000000000000001", 1L);

  @Test
  void aClosingRecordsHeadersCarryItsOffsetAsTextAndReadBackToIt() {
    Map<String, String> headers = new LinkedHashMap<>();
    OffsetHeaders.write("orders", "orders_slot", POSITION, headers::put);
    assertThat(headers)
        .containsExactly(
            Map.entry("trellara.offset.source_id", "orders"),
            Map.entry("trellara.offset.slot", "orders_slot"),
            Map.entry("trellara.offset.commit_lsn", "0/16B3748"),
            Map.entry("trellara.offset.end_lsn", "0/16B3790"),
            Map.entry("trellara.offset.transaction_id", "771"),
            Map.entry("trellara.offset.system_id", "7390000000000000001"),
            Map.entry("trellara.offset.timeline", "1"));
    OffsetHeaders.Stamp stamp = OffsetHeaders.read(headers::get);
    assertThat(stamp.position()).isEqualTo(POSITION);
    assertThat(stamp.of("orders", "orders_slot")).isTrue();
    assertThat(stamp.of("orders", "other")).isFalse();
  }

  @Test
  void aRecordWithoutThemOrWithMalformedOnesCarriesNoOffset() {
    assertThat(OffsetHeaders.read(name -> null)).isNull();
    Map<String, String> headers = new LinkedHashMap<>();
    OffsetHeaders.write("orders", "orders_slot", POSITION, headers::put);
    headers.put(OffsetHeaders.END_LSN, "not an lsn");
    assertThat(OffsetHeaders.read(headers::get)).isNull();
    headers.put(OffsetHeaders.END_LSN, "0/16B3790");
    headers.put(OffsetHeaders.TIMELINE, "one");
    assertThat(OffsetHeaders.read(headers::get)).isNull();
    headers.remove(OffsetHeaders.TIMELINE);
    headers.remove(OffsetHeaders.SYSTEM_ID);
    assertThat(OffsetHeaders.read(headers::get).position().systemId()).isNull();
  }
}
