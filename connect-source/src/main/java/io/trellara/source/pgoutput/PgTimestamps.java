package io.trellara.source.pgoutput;

import java.time.Instant;

/** PostgreSQL timestamps on the wire: signed 64-bit microseconds since 2000-01-01 00:00:00 UTC. */
public final class PgTimestamps {

  /** 2000-01-01T00:00:00Z in Unix epoch milliseconds. */
  public static final long POSTGRES_EPOCH_UNIX_MILLIS = 946_684_800_000L;

  /** 2000-01-01T00:00:00Z in Unix epoch seconds. */
  public static final long POSTGRES_EPOCH_UNIX_SECONDS = 946_684_800L;

  private PgTimestamps() {}

  /**
   * Converts PostgreSQL-epoch microseconds to Unix-epoch milliseconds (floor, so pre-epoch values
   * round down).
   */
  public static long toUnixEpochMillis(long postgresEpochMicros) {
    return Math.floorDiv(postgresEpochMicros, 1000L) + POSTGRES_EPOCH_UNIX_MILLIS;
  }

  /** Converts PostgreSQL-epoch microseconds to an {@link Instant} with microsecond precision. */
  public static Instant toInstant(long postgresEpochMicros) {
    long seconds = Math.floorDiv(postgresEpochMicros, 1_000_000L);
    long micros = Math.floorMod(postgresEpochMicros, 1_000_000L);
    return Instant.ofEpochSecond(seconds + POSTGRES_EPOCH_UNIX_SECONDS, micros * 1000L);
  }
}
