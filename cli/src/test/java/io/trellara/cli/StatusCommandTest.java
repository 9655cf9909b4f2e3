package io.trellara.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code trellara status} against a fake Connect REST API (an in-JVM HTTP server). */
class StatusCommandTest {
  private final Map<String, String> answers = new HashMap<>();
  private HttpServer server;
  private String url;

  private record Result(int status, String out) {}

  @BeforeEach
  void startFakeWorker() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          String body = answers.get(exchange.getRequestURI().getRawPath());
          byte[] bytes =
              (body != null ? body : "{\"error_code\":404,\"message\":\"Connector not found\"}")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(body != null ? 200 : 404, bytes.length);
          try (OutputStream os = exchange.getResponseBody()) {
            os.write(bytes);
          }
        });
    server.start();
    url = "http://127.0.0.1:" + server.getAddress().getPort();
    answers.put("/connectors", "[\"orders-source\", \"orders-sink\"]");
    answers.put(
        "/connectors/orders-source/status",
        """
                {"name":"orders-source","connector":{"state":"RUNNING","worker_id":"10.0.0.1:8083"},
                 "tasks":[{"id":0,"state":"RUNNING","worker_id":"10.0.0.1:8083"}],"type":"source"}""");
    answers.put(
        "/connectors/orders-source/config",
        """
                {"connector.class":"io.trellara.source.connect.TrellaraSourceConnector","slot.name":"orders_slot",
                 "name":"orders-source"}""");
    answers.put(
        "/connectors/orders-sink/status",
        """
                {"name":"orders-sink","connector":{"state":"RUNNING","worker_id":"10.0.0.2:8083"},
                 "tasks":[{"id":0,"state":"RUNNING","worker_id":"10.0.0.2:8083"},
                          {"id":1,"state":"RUNNING","worker_id":"10.0.0.1:8083"}],"type":"sink"}""");
    answers.put(
        "/connectors/orders-sink/config",
        """
                {"connector.class":"io.trellara.sink.connect.TrellaraSinkConnector","topics":"orders.strict"}""");
    answers.put(
        "/connectors/with%20space/status",
        """
                {"name":"with space","connector":{"state":"RUNNING","worker_id":"w:1"},
                 "tasks":[{"id":0,"state":"FAILED","worker_id":"w:1",
                           "trace":"org.apache.kafka.connect.errors.ConnectException: target refused\\n\\tat x.y(Z.java:1)"}],
                 "type":"sink"}""");
    answers.put(
        "/connectors/with%20space/config",
        """
                {"connector.class":"io.trellara.sink.connect.TrellaraSinkConnector"}""");
  }

  @AfterEach
  void stopFakeWorker() {
    server.stop(0);
  }

  private static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = TrellaraCli.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Result(status, out + err.toString());
  }

  @Test
  void showsEveryConnectorWithItsTasksAndExitsZeroWhenAllRun() {
    Result r = run("status", "--connect-url", url);
    assertThat(r.status()).as(r.out()).isZero();
    assertThat(r.out())
        .contains("connector orders-sink  type=sink  state=RUNNING  worker=10.0.0.2:8083")
        .contains("  task 1  state=RUNNING  worker=10.0.0.1:8083")
        .contains("  stages  unknown (pass --jmx HOST:PORT of the worker to read them)")
        .contains("connector orders-source  type=source  state=RUNNING")
        .contains("  slot orders_slot  lag_bytes=unknown (pass --source-jdbc to read the slot)")
        .contains("summary  connectors=2  running=2  not_running=0");
    assertThat(r.out().indexOf("connector orders-sink"))
        .isLessThan(r.out().indexOf("connector orders-source"));
  }

  @Test
  void aFailedTaskExitsOneAndShowsTheFirstLineOfItsTrace() {
    Result r = run("status", "--connect-url", url + "/", "--connector", "with space");
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.out())
        .contains(
            "  task 0  state=FAILED  worker=w:1  error=org.apache.kafka.connect.errors.ConnectException:"
                + " target refused")
        .doesNotContain("Z.java")
        .contains("summary  connectors=1  running=0  not_running=1");
  }

  @Test
  void onlyTheNamedConnectorsAreShown() {
    Result r = run("status", "--connect-url", url, "--connector", "orders-source");
    assertThat(r.status()).isZero();
    assertThat(r.out())
        .contains("connector orders-source")
        .doesNotContain("orders-sink")
        .contains("summary  connectors=1  running=1");
  }

  @Test
  void anUnknownConnectorIsNamedWithTheWorkersAnswer() {
    Result r = run("status", "--connect-url", url, "--connector", "nope");
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.out()).contains("/connectors/nope/status answered 404: Connector not found");
  }

  @Test
  void anUnreachableWorkerIsReported() {
    server.stop(0);
    Result r = run("status", "--connect-url", url);
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.out()).contains("cannot reach the Connect worker at " + url + "/");
  }

  @Test
  void theConnectUrlIsRequired() {
    Result r = run("status");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.out()).contains("--connect-url");
  }
}
