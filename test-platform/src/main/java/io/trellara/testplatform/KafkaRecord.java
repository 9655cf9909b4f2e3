package io.trellara.testplatform;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * One record as read from a topic: raw key and value bytes, headers in order (a key may repeat).
 *
 * @param headers header key/value pairs in record order; values may be null
 */
public record KafkaRecord(
    String topic,
    int partition,
    long offset,
    long timestamp,
    byte[] key,
    byte[] value,
    List<Map.Entry<String, byte[]>> headers) {

  /** The last header with that key, or null. */
  public byte[] header(String headerKey) {
    byte[] found = null;
    for (Map.Entry<String, byte[]> header : headers) {
      if (header.getKey().equals(headerKey)) {
        found = header.getValue();
      }
    }
    return found;
  }

  /** The last header with that key decoded as UTF-8, or null. */
  public String headerAsString(String headerKey) {
    byte[] bytes = header(headerKey);
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }

  public String keyAsString() {
    return key == null ? null : new String(key, StandardCharsets.UTF_8);
  }

  public String valueAsString() {
    return value == null ? null : new String(value, StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return topic
        + "-"
        + partition
        + "@"
        + offset
        + " key="
        + (key == null ? "null" : key.length + "B")
        + " value="
        + (value == null ? "null" : value.length + "B")
        + " headers="
        + headers.size();
  }
}
