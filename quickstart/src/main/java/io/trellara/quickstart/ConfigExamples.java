package io.trellara.quickstart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trellara.testplatform.ConnectRestClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The connector JSON users POST, from {@code config-examples/}: the quickstart starts from the
 * plain example of each connector class so that the examples are exercised, and falls back to its
 * built-in configuration.
 */
final class ConfigExamples {

  private final Path dir;
  private final ConnectRestClient rest;
  private final ConsoleReport report;
  private final ObjectMapper json = new ObjectMapper();

  ConfigExamples(Path dir, ConnectRestClient rest, ConsoleReport report) {
    this.dir = dir;
    this.rest = rest;
    this.report = report;
  }

  /**
   * The example JSON when there is one for the class (placeholders replaced in {@code placeholders}
   * order, and the connection, identity, topic and slot settings of this run on top), validated by
   * the worker; otherwise, or when the example does not validate, the built-in configuration.
   */
  Map<String, String> configFor(
      String kind,
      String connectorClass,
      Map<String, String> builtIn,
      Map<String, String> placeholders) {
    Optional<Path> example = find(connectorClass);
    if (example.isEmpty()) {
      report.step("  " + kind + " config: built in (no " + kind + " example in " + dir + "/)");
      return builtIn;
    }
    try {
      Map<String, String> merged = new LinkedHashMap<>();
      config(json.readTree(example.get().toFile()))
          .properties()
          .forEach(e -> merged.put(e.getKey(), substitute(e.getValue().asText(), placeholders)));
      merged.remove("name");
      merged.remove("relation.mapping"); // the demo keeps schema and table names
      merged.putAll(builtIn);
      ConnectRestClient.ValidationResult validation = rest.validate(connectorClass, merged);
      if (validation.errorCount() > 0) {
        report.step(
            "  "
                + kind
                + " config: built in ("
                + example.get()
                + " does not validate here: "
                + validation.messages()
                + ")");
        return builtIn;
      }
      report.step(
          "  "
              + kind
              + " config: "
              + example.get()
              + " (hosts, ports, databases and names substituted)");
      return merged;
    } catch (IOException | RuntimeException e) {
      report.step(
          "  "
              + kind
              + " config: built in (cannot use "
              + example.get()
              + ": "
              + e.getMessage()
              + ")");
      return builtIn;
    }
  }

  private Optional<Path> find(String connectorClass) {
    if (!Files.isDirectory(dir)) {
      return Optional.empty();
    }
    List<Path> candidates = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      files
          .filter(p -> p.getFileName().toString().endsWith(".json"))
          .sorted()
          .forEach(
              p -> {
                try {
                  if (connectorClass.equals(
                      config(json.readTree(p.toFile())).path("connector.class").asText())) {
                    candidates.add(p);
                  }
                } catch (IOException | RuntimeException ignored) {
                  // not a connector document
                }
              });
    } catch (IOException e) {
      return Optional.empty();
    }
    // the plain strict example first: no chunking, partitioning or protocol variants
    return candidates.stream().sorted((a, b) -> Integer.compare(rank(a), rank(b))).findFirst();
  }

  /** Either the POST body ({@code {"name": ..., "config": {...}}}) or the bare config map. */
  private static JsonNode config(JsonNode root) {
    return root.has("config") ? root.get("config") : root;
  }

  private static int rank(Path p) {
    String n = p.getFileName().toString().toLowerCase(Locale.ROOT);
    int rank = n.length();
    for (String variant :
        new String[] {"chunk", "partition", "protocol", "proto1", "v1", "standalone"}) {
      if (n.contains(variant)) {
        rank += 1000;
      }
    }
    return rank;
  }

  private static String substitute(String value, Map<String, String> placeholders) {
    for (Map.Entry<String, String> p : placeholders.entrySet()) {
      value = value.replace(p.getKey(), p.getValue());
    }
    return value;
  }
}
