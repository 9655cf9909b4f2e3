package io.trellara.source.pgoutput;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class PgTimestampsTest {

  @Test
  void convertsPostgresEpochMicrosToUnixEpochMillis() {
    assertThat(PgTimestamps.toUnixEpochMillis(0))
        .isEqualTo(Instant.parse("2000-01-01T00:00:00Z").toEpochMilli());
    long micros =
        (Instant.parse("2026-11-29T12:34:56.789012Z").getEpochSecond() - 946_684_800L) * 1_000_000L
            + 789_012L;
    assertThat(PgTimestamps.toUnixEpochMillis(micros))
        .isEqualTo(Instant.parse("2026-11-29T12:34:56.789Z").toEpochMilli());
    assertThat(PgTimestamps.toInstant(micros))
        .isEqualTo(Instant.parse("2026-11-29T12:34:56.789012Z"));
  }

  @Test
  void roundsPreEpochValuesDown() {
    assertThat(PgTimestamps.toUnixEpochMillis(-1))
        .isEqualTo(PgTimestamps.POSTGRES_EPOCH_UNIX_MILLIS - 1);
    assertThat(PgTimestamps.toInstant(-1)).isEqualTo(Instant.parse("1999-12-31T23:59:59.999999Z"));
  }
}
