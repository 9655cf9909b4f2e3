package io.trellara.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EventKeyTest {
  private static final String PREFIX = EventKey.prefix("pg", "0/16B3748", "771");

  @Test
  void canonicalKeyMatchesItsOrder() {
    assertThat(EventKey.matches(EventKey.of("pg", "0/16B3748", "771", 42), PREFIX, 42)).isTrue();
    assertThat(EventKey.matches(PREFIX + "0", PREFIX, 0)).isTrue();
  }

  @Test
  void largestUnsignedOrderMatchesAndNothingAboveItWrapsOntoASmallOne() {
    assertThat(EventKey.matches(PREFIX + "18446744073709551615", PREFIX, -1L)).isTrue();
    assertThat(EventKey.of("pg", "0/16B3748", "771", -1L))
        .isEqualTo(PREFIX + "18446744073709551615");
    assertThat(EventKey.matches(PREFIX + "18446744073709551616", PREFIX, 0)).isFalse();
    assertThat(EventKey.matches(PREFIX + "18446744073709551617", PREFIX, 1)).isFalse();
    assertThat(EventKey.matches(PREFIX + "18446744073709551625", PREFIX, 9)).isFalse();
    // 10^20 - 1 wraps to 7766279631452241919
    assertThat(EventKey.matches(PREFIX + "99999999999999999999", PREFIX, 7766279631452241919L))
        .isFalse();
    assertThat(EventKey.matches(PREFIX + "18446744073709551614", PREFIX, -2L)).isTrue();
  }

  @Test
  void nonCanonicalSpellingsOfTheRightOrderAreRejected() {
    assertThat(EventKey.matches(PREFIX + "042", PREFIX, 42)).isFalse();
    assertThat(EventKey.matches(PREFIX + "00", PREFIX, 0)).isFalse();
    assertThat(EventKey.matches(PREFIX + "+42", PREFIX, 42)).isFalse();
    assertThat(EventKey.matches(PREFIX + "-42", PREFIX, -42)).isFalse();
    assertThat(EventKey.matches(PREFIX + " 42", PREFIX, 42)).isFalse();
    assertThat(EventKey.matches(PREFIX + "42 ", PREFIX, 42)).isFalse();
    assertThat(EventKey.matches(PREFIX + "٤٢", PREFIX, 42)).isFalse();
    assertThat(EventKey.matches(PREFIX, PREFIX, 0)).isFalse();
  }

  @Test
  void anotherPrefixOrOrderDoesNotMatch() {
    assertThat(EventKey.matches("pg:0/16B3748:772:42", PREFIX, 42)).isFalse();
    assertThat(EventKey.matches(PREFIX + "43", PREFIX, 42)).isFalse();
  }

  /** The form of transaction_id: what Long.toUnsignedString prints, nothing else. */
  @Test
  void unsignedDecimalIsTheCanonicalFormOnly() {
    for (String good : new String[] {"0", "7", "771", "18446744073709551615"}) {
      assertThat(EventKey.isUnsignedDecimal(good)).as(good).isTrue();
    }
    for (String bad :
        new String[] {
          "", "0771", "+771", "-1", "77 1", "tx-771", "18446744073709551616", "\u0667\u0667\u0661"
        }) {
      assertThat(EventKey.isUnsignedDecimal(bad)).as(bad).isFalse();
    }
  }
}
