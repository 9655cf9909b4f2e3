package io.trellara.testplatform;

import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Unique, PostgreSQL- and Kafka-safe names: lower-case letters, digits and underscores, at most 63
 * chars.
 */
public final class Names {

  private static final int MAX_IDENTIFIER = 63;
  private static final AtomicInteger SEQUENCE = new AtomicInteger();

  private Names() {}

  /** Six random lower-case hex digits. */
  public static String randomSuffix() {
    return String.format(Locale.ROOT, "%06x", ThreadLocalRandom.current().nextInt(1 << 24));
  }

  /**
   * {@code <prefix>_<n>_<random>} as an {@link #identifier}: unique in this JVM, unlikely to clash
   * across JVMs.
   */
  public static String uniqueIdentifier(String prefix) {
    return identifier(prefix + "_" + SEQUENCE.incrementAndGet() + "_" + randomSuffix());
  }

  /**
   * Lower-cases, replaces anything but [a-z0-9_] with '_', prefixes a letter if needed, cuts to 63.
   */
  public static String identifier(String raw) {
    StringBuilder out = new StringBuilder(raw.length() + 1);
    for (char c : raw.toLowerCase(Locale.ROOT).toCharArray()) {
      boolean safe = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
      out.append(safe ? c : '_');
    }
    if (out.length() == 0 || !(out.charAt(0) >= 'a' && out.charAt(0) <= 'z')) {
      out.insert(0, 't');
    }
    if (out.length() > MAX_IDENTIFIER) {
      // keep the unique tail (sequence and random suffix)
      out.delete(0, out.length() - MAX_IDENTIFIER);
      if (!(out.charAt(0) >= 'a' && out.charAt(0) <= 'z')) {
        out.setCharAt(0, 't');
      }
    }
    return out.toString();
  }
}
