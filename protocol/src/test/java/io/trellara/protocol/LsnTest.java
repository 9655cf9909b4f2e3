package io.trellara.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LsnTest {

  @Test
  void parsesAndPrintsPostgresCanonicalForm() {
    Lsn lsn = Lsn.parse("16/B374D848");
    assertThat(lsn.value()).isEqualTo(0x16B374D848L);
    assertThat(lsn).hasToString("16/B374D848");
    assertThat(Lsn.of(0x1_0000_0000L)).hasToString("1/0");
    assertThat(Lsn.ZERO).hasToString("0/0");
  }

  @Test
  void acceptsLowerCaseButOnlyUpperCaseIsCanonical() {
    assertThat(Lsn.parse("0/16b3748")).isEqualTo(Lsn.parse("0/16B3748"));
    assertThat(Lsn.isCanonical("0/16B3748")).isTrue();
    assertThat(Lsn.isCanonical("0/16b3748")).isFalse();
    assertThat(Lsn.isCanonical("0/016B3748")).isFalse();
    assertThat(Lsn.isCanonical("00/16B3748")).isFalse();
  }

  /** Character.digit would read these as hex digits; an LSN is ASCII. */
  @Test
  void rejectsDigitsOutsideAscii() {
    for (String bad : new String[] {"\uFF10/\uFF10", "0/\uFF21", "\u0661/0"}) {
      assertThat(Lsn.parses(bad)).as(bad).isFalse();
    }
    assertThat(Lsn.parses("0/a")).isTrue();
  }

  @Test
  void rejectsMalformedText() {
    for (String bad :
        new String[] {"", "/", "0/", "/0", "0:0", "0/G", "-1/0", "123456789/0", "0/0/0"}) {
      assertThatThrownBy(() -> Lsn.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void comparesUnsigned() {
    assertThat(Lsn.parse("FFFFFFFF/0")).isGreaterThan(Lsn.parse("7FFFFFFF/FFFFFFFF"));
    assertThat(Lsn.parse("0/10")).isLessThan(Lsn.parse("1/0"));
  }

  @Test
  void eventKeyMatchesWithoutAllocating() {
    String prefix = EventKey.prefix("src", "0/10", "7");
    assertThat(EventKey.of("src", "0/10", "7", 12)).isEqualTo("src:0/10:7:12");
    assertThat(EventKey.matches("src:0/10:7:12", prefix, 12)).isTrue();
    assertThat(EventKey.matches("src:0/10:7:012", prefix, 12)).isFalse();
    assertThat(EventKey.matches("src:0/10:7:13", prefix, 12)).isFalse();
    assertThat(EventKey.matches("src:0/10:8:12", prefix, 12)).isFalse();
  }

  @Test
  void boundaryKeyShowsDatabaseIdButDoesNotCompareIt() {
    var a = new TransactionBoundaryKey("src", "db-a", "0/10", "7");
    var b = new TransactionBoundaryKey("src", "db-b", "0/10", "7");
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a.display()).isEqualTo("src/db-a:0/10:7");
  }

  @Test
  void rendersOperatorCounts() {
    assertThat(new EventCounts(300, 2).render()).isEqualTo("dml=300 ddl=2 source_total=302");
  }
}
