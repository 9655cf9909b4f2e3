package io.trellara.testplatform;

import static io.trellara.testplatform.rest.JsonHttp.segment;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trellara.testplatform.rest.JsonHttp;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The Connect REST API, as an operator uses it (java.net.http + Jackson). Writes that hit a
 * rebalance (HTTP 409) are retried for up to 30 s; any other non-2xx answer throws {@link
 * ConnectRestException}.
 */
public final class ConnectRestClient {

  /** Default upper bound of the await methods. */
  public static final Duration DEFAULT_AWAIT = Duration.ofSeconds(60);

  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI base;
  private final JsonHttp http;

  public ConnectRestClient(URI base) {
    String url = base.toString();
    this.base = URI.create(url.endsWith("/") ? url : url + "/");
    this.http = new JsonHttp(this.base);
  }

  public URI baseUrl() {
    return base;
  }

  /** Non-2xx answer of the worker. */
  public static final class ConnectRestException extends RuntimeException {
    private final int status;
    private final String body;

    ConnectRestException(String method, String path, int status, String body) {
      super(method + " " + path + " -> HTTP " + status + ": " + body);
      this.status = status;
      this.body = body;
    }

    public int status() {
      return status;
    }

    public String body() {
      return body;
    }
  }

  /**
   * PUT /connector-plugins/{plugin}/config/validate.
   *
   * @param errors config key to its error messages, only for keys that have errors
   */
  public record ValidationResult(int errorCount, Map<String, List<String>> errors, JsonNode raw) {
    /** Every message, prefixed with its key. */
    public List<String> messages() {
      List<String> all = new ArrayList<>();
      errors.forEach((key, list) -> list.forEach(m -> all.add(key + ": " + m)));
      return all;
    }
  }

  // ---------------------------------------------------------------- worker

  /** Waits until GET / answers 200. */
  public void awaitReady() {
    await("Connect REST at " + base)
        .atMost(DEFAULT_AWAIT)
        .pollInterval(Duration.ofMillis(100))
        .ignoreExceptions()
        .until(() -> http.send("GET", "", null).statusCode() == 200);
  }

  /** True when GET / answers 200 right now. */
  public boolean isReady() {
    try {
      return http.send("GET", "", null).statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** GET / : version, commit, kafka_cluster_id. */
  public JsonNode serverInfo() {
    return call("GET", "", null);
  }

  /** GET /connector-plugins?connectorsOnly=... : class, type, version of each plugin. */
  public List<JsonNode> connectorPlugins(boolean connectorsOnly) {
    List<JsonNode> plugins = new ArrayList<>();
    call("GET", "connector-plugins?connectorsOnly=" + connectorsOnly, null).forEach(plugins::add);
    return plugins;
  }

  /** Class names of the connector plugins the worker offers. */
  public List<String> connectorPluginClasses() {
    return connectorPlugins(true).stream().map(p -> p.path("class").asText()).toList();
  }

  // ---------------------------------------------------------------- connectors

  public List<String> connectors() {
    List<String> names = new ArrayList<>();
    call("GET", "connectors", null).forEach(n -> names.add(n.asText()));
    return names;
  }

  /** POST /connectors with {"name": name, "config": config}; returns the worker's answer. */
  public JsonNode createConnector(String name, Map<String, String> config) {
    ObjectNode body = JSON.createObjectNode();
    body.put("name", name);
    body.set("config", JSON.valueToTree(config));
    return call("POST", "connectors", body.toString());
  }

  /**
   * POST /connectors with a complete JSON document as users post it (e.g. from config-examples/).
   */
  public JsonNode createConnector(String json) {
    return call("POST", "connectors", json);
  }

  /** PUT /connectors/{name}/config: creates or updates. */
  public JsonNode putConnectorConfig(String name, Map<String, String> config) {
    return call("PUT", "connectors/" + segment(name) + "/config", toJson(config));
  }

  public Map<String, String> connectorConfig(String name) {
    JsonNode config = call("GET", "connectors/" + segment(name) + "/config", null);
    Map<String, String> result = new LinkedHashMap<>();
    config.fields().forEachRemaining(e -> result.put(e.getKey(), e.getValue().asText()));
    return result;
  }

  /**
   * PUT /connector-plugins/{plugin}/config/validate; the plugin is a class name or alias. Connect
   * reports a missing {@code name} as an error, so {@code connector.class} and a placeholder {@code
   * name} are added when the config lacks them (pass them explicitly to validate them).
   */
  public ValidationResult validate(String plugin, Map<String, String> config) {
    Map<String, String> body = new LinkedHashMap<>(config);
    body.putIfAbsent("connector.class", plugin);
    body.putIfAbsent("name", "validation-probe");
    JsonNode answer =
        call("PUT", "connector-plugins/" + segment(plugin) + "/config/validate", toJson(body));
    Map<String, List<String>> errors = new LinkedHashMap<>();
    for (JsonNode config1 : answer.path("configs")) {
      JsonNode value = config1.path("value");
      List<String> messages = new ArrayList<>();
      value.path("errors").forEach(m -> messages.add(m.asText()));
      if (!messages.isEmpty()) {
        errors.put(value.path("name").asText(), messages);
      }
    }
    return new ValidationResult(answer.path("error_count").asInt(), errors, answer);
  }

  public ConnectorStatus status(String name) {
    return ConnectorStatus.fromJson(call("GET", "connectors/" + segment(name) + "/status", null));
  }

  /**
   * Waits until the connector and at least one task are RUNNING; fails fast with the trace on
   * FAILED.
   */
  public ConnectorStatus awaitRunning(String name) {
    return awaitRunning(name, 1, DEFAULT_AWAIT);
  }

  /**
   * Waits until the connector and at least {@code minTasks} tasks are RUNNING; fails fast on
   * FAILED.
   */
  public ConnectorStatus awaitRunning(String name, int minTasks, Duration atMost) {
    AtomicReference<ConnectorStatus> last = new AtomicReference<>();
    await("connector " + name + " RUNNING with " + minTasks + " task(s)")
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              ConnectorStatus status = statusOrNull(name);
              last.set(status);
              if (status != null && status.isFailed()) {
                throw new AssertionError(
                    "connector "
                        + name
                        + " FAILED instead of RUNNING: "
                        + status
                        + "\n"
                        + status.firstTrace());
              }
              return status != null && status.isRunning(minTasks);
            });
    return last.get();
  }

  /**
   * Waits until the connector or a task is FAILED and returns that status (its trace names the
   * cause).
   */
  public ConnectorStatus awaitFailed(String name) {
    return awaitFailed(name, DEFAULT_AWAIT);
  }

  public ConnectorStatus awaitFailed(String name, Duration atMost) {
    AtomicReference<ConnectorStatus> last = new AtomicReference<>();
    await("connector " + name + " FAILED")
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              ConnectorStatus status = statusOrNull(name);
              last.set(status);
              return status != null && status.isFailed();
            });
    return last.get();
  }

  /** Waits until the connector reports the given state (e.g. PAUSED, STOPPED). */
  public ConnectorStatus awaitState(String name, String state) {
    AtomicReference<ConnectorStatus> last = new AtomicReference<>();
    await("connector " + name + " " + state)
        .atMost(DEFAULT_AWAIT)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              ConnectorStatus status = statusOrNull(name);
              last.set(status);
              return status != null && state.equals(status.state());
            });
    return last.get();
  }

  private ConnectorStatus statusOrNull(String name) {
    try {
      return status(name);
    } catch (ConnectRestException e) {
      if (e.status() == 404) {
        return null; // not yet known to this worker
      }
      throw e;
    }
  }

  /** POST /connectors/{name}/restart?includeTasks=..&onlyFailed=.. */
  public void restart(String name, boolean includeTasks, boolean onlyFailed) {
    call(
        "POST",
        "connectors/"
            + segment(name)
            + "/restart?includeTasks="
            + includeTasks
            + "&onlyFailed="
            + onlyFailed,
        null);
  }

  public void restartTask(String name, int task) {
    call("POST", "connectors/" + segment(name) + "/tasks/" + task + "/restart", null);
  }

  public void pause(String name) {
    call("PUT", "connectors/" + segment(name) + "/pause", null);
  }

  public void resume(String name) {
    call("PUT", "connectors/" + segment(name) + "/resume", null);
  }

  /**
   * PUT /connectors/{name}/stop: tasks shut down, the sink leaves its consumer group (offsets can
   * then be reset).
   */
  public void stop(String name) {
    call("PUT", "connectors/" + segment(name) + "/stop", null);
  }

  public void delete(String name) {
    call("DELETE", "connectors/" + segment(name), null);
  }

  /** DELETE and wait until the worker no longer lists it. */
  public void deleteAndAwait(String name) {
    delete(name);
    await("connector " + name + " deleted")
        .atMost(DEFAULT_AWAIT)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> !connectors().contains(name));
  }

  /**
   * GET /connectors/{name}/offsets (source partitions/offsets or sink topic partitions/offsets).
   */
  public JsonNode offsets(String name) {
    return call("GET", "connectors/" + segment(name) + "/offsets", null);
  }

  /** PATCH /connectors/{name}/offsets with {"offsets": [...]}; the connector must be STOPPED. */
  public JsonNode alterOffsets(String name, String offsetsJson) {
    return call("PATCH", "connectors/" + segment(name) + "/offsets", offsetsJson);
  }

  /** DELETE /connectors/{name}/offsets; the connector must be STOPPED. */
  public JsonNode resetOffsets(String name) {
    return call("DELETE", "connectors/" + segment(name) + "/offsets", null);
  }

  // ---------------------------------------------------------------- plumbing

  /**
   * Any call; 409 (rebalance in progress) retried for 30 s ({@link JsonHttp}). Returns the parsed
   * body (empty object if none).
   */
  public JsonNode call(String method, String path, String jsonBody) {
    HttpResponse<String> response = http.sendRetryingConflicts(method, path, jsonBody);
    int code = response.statusCode();
    if (code / 100 != 2) {
      throw new ConnectRestException(method, path, code, response.body());
    }
    return JsonHttp.parse(response.body());
  }

  private static String toJson(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot serialise " + value, e);
    }
  }

  @Override
  public String toString() {
    return "ConnectRestClient[" + base + "]";
  }
}
