package io.trellara.source.signal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a signal from the value of a record on {@code signal.kafka.topic}: a JSON object with the
 * signal table's three columns, {@code {"id": "...", "type": "snapshot", "data": "public.orders"}}
 * ({@code data} one table per line, as in the signal table), or the same fields as a Debezium
 * signal: {@code {"id": "...", "type": "execute-snapshot", "data": {"data-collections":
 * ["public.orders"], "additional-conditions": [{"data-collection": "public.orders", "filter":
 * "..."}]}}}. Debezium's {@code execute-snapshot} is read as {@code snapshot}, each data collection
 * as one line, each additional condition as that line's {@code WHERE} filter; Debezium's {@code
 * data.type} (incremental, blocking) is ignored. The result then goes through {@link SignalParser},
 * the one set of rules for every signal.
 */
public final class KafkaSignalValue {
  /** A larger value is refused before it is parsed. */
  static final int MAX_VALUE_BYTES = 64 * 1024;

  private static final String DEBEZIUM_SNAPSHOT = "execute-snapshot";

  private KafkaSignalValue() {}

  static Signal parse(byte[] value) throws MalformedSignalException {
    if (value == null || value.length == 0) {
      throw new MalformedSignalException("the record has no value");
    }
    if (value.length > MAX_VALUE_BYTES) {
      throw new MalformedSignalException(
          "the value is longer than " + MAX_VALUE_BYTES + " bytes (" + value.length + ")");
    }
    return parse(new String(value, StandardCharsets.UTF_8));
  }

  public static Signal parse(String json) throws MalformedSignalException {
    if (!(SignalJson.parse(json) instanceof Map<?, ?> m)) {
      throw new MalformedSignalException("the value is not a JSON object");
    }
    String id = text(m, "id");
    String type = text(m, "type");
    if (DEBEZIUM_SNAPSHOT.equals(type == null ? null : type.strip())) {
      type = Signal.Action.SNAPSHOT.wireName();
    }
    Object data = m.get("data");
    String lines;
    if (data == null || data instanceof String) {
      lines = (String) data;
    } else if (data instanceof Map<?, ?> d) {
      lines = debeziumData(d);
    } else {
      throw new MalformedSignalException("data is neither text nor an object");
    }
    return SignalParser.parse(id, type, lines);
  }

  /** Debezium's data object as the signal table's data column: one table (and filter) a line. */
  private static String debeziumData(Map<?, ?> d) throws MalformedSignalException {
    Map<String, String> tables = new LinkedHashMap<>();
    for (Object t : list(d, "data-collections")) {
      if (!(t instanceof String name) || name.isBlank() || name.contains("\n")) {
        throw new MalformedSignalException("data-collections holds something not a table name");
      }
      if (tables.containsKey(name.strip())) {
        throw new MalformedSignalException("data-collections names " + name + " twice");
      }
      tables.put(name.strip(), null);
    }
    for (Object c : list(d, "additional-conditions")) {
      if (!(c instanceof Map<?, ?> cond)) {
        throw new MalformedSignalException("additional-conditions holds something not an object");
      }
      String table = text(cond, "data-collection");
      String filter = text(cond, "filter");
      if (table == null || !tables.containsKey(table.strip()) || filter == null) {
        throw new MalformedSignalException(
            "an additional condition names no filter or a table not in data-collections");
      }
      tables.put(table.strip(), filter.replace('\n', ' '));
    }
    List<String> lines = new ArrayList<>();
    tables.forEach((t, f) -> lines.add(f == null ? t : t + " WHERE " + f));
    return lines.isEmpty() ? null : String.join("\n", lines);
  }

  private static List<?> list(Map<?, ?> m, String member) throws MalformedSignalException {
    Object v = m.get(member);
    if (v == null) {
      return List.of();
    }
    if (!(v instanceof List<?> l)) {
      throw new MalformedSignalException(member + " is not a JSON array");
    }
    return l;
  }

  private static String text(Map<?, ?> m, String member) throws MalformedSignalException {
    Object v = m.get(member);
    if (v != null && !(v instanceof String)) {
      throw new MalformedSignalException(member + " is not a JSON string");
    }
    return (String) v;
  }
}
