package io.trellara.cli;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The few read-only calls of a Connect worker's REST API that {@code trellara status} makes. */
final class ConnectRest {
  private static final Duration TIMEOUT = Duration.ofSeconds(15);

  /** A task as the worker reports it. */
  record TaskState(int id, String state, String workerId, String trace) {}

  /** GET /connectors/{name}/status, with the connector's config. */
  record ConnectorState(
      String name,
      String type,
      String state,
      String workerId,
      String trace,
      List<TaskState> tasks,
      Map<String, String> config) {
    boolean running() {
      return "RUNNING".equals(state)
          && !tasks.isEmpty()
          && tasks.stream().allMatch(t -> "RUNNING".equals(t.state()));
    }

    String connectorClass() {
      return config.getOrDefault("connector.class", "");
    }
  }

  /** The worker answered with an error status (e.g. 404 for an unknown connector). */
  static final class RestException extends RuntimeException {
    RestException(String message) {
      super(message);
    }
  }

  private final URI base;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

  ConnectRest(String url) {
    this.base = URI.create(url.endsWith("/") ? url : url + "/");
  }

  List<String> connectors() {
    List<String> names = new ArrayList<>();
    get("connectors").getAsJsonArray().forEach(e -> names.add(e.getAsString()));
    names.sort(null);
    return names;
  }

  ConnectorState status(String name) {
    JsonObject status = get("connectors/" + encode(name) + "/status").getAsJsonObject();
    JsonObject connector = status.getAsJsonObject("connector");
    List<TaskState> tasks = new ArrayList<>();
    if (status.has("tasks")) {
      for (JsonElement t : status.getAsJsonArray("tasks")) {
        JsonObject o = t.getAsJsonObject();
        tasks.add(
            new TaskState(
                o.get("id").getAsInt(), text(o, "state"), text(o, "worker_id"), text(o, "trace")));
      }
    }
    Map<String, String> config = new LinkedHashMap<>();
    get("connectors/" + encode(name) + "/config")
        .getAsJsonObject()
        .entrySet()
        .forEach(
            e ->
                config.put(
                    e.getKey(), e.getValue().isJsonNull() ? null : e.getValue().getAsString()));
    return new ConnectorState(
        name,
        text(status, "type"),
        text(connector, "state"),
        text(connector, "worker_id"),
        text(connector, "trace"),
        tasks,
        config);
  }

  private static String text(JsonObject o, String field) {
    JsonElement e = o == null ? null : o.get(field);
    return e == null || e.isJsonNull() ? null : e.getAsString();
  }

  private static String encode(String name) {
    return URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private JsonElement get(String path) {
    URI uri = base.resolve(path);
    HttpRequest request =
        HttpRequest.newBuilder(uri)
            .timeout(TIMEOUT)
            .header("Accept", "application/json")
            .GET()
            .build();
    HttpResponse<String> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new RestException("cannot reach the Connect worker at " + base + ": " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RestException("interrupted while calling " + uri);
    }
    if (response.statusCode() / 100 != 2) {
      throw new RestException(
          "GET " + uri + " answered " + response.statusCode() + ": " + message(response.body()));
    }
    return JsonParser.parseString(response.body());
  }

  private static String message(String body) {
    try {
      JsonElement e = JsonParser.parseString(body);
      if (e.isJsonObject() && e.getAsJsonObject().has("message")) {
        return e.getAsJsonObject().get("message").getAsString();
      }
    } catch (RuntimeException ignored) {
      // not JSON: show it as it is
    }
    return body;
  }
}
