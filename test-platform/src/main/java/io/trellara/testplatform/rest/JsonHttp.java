package io.trellara.testplatform.rest;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * JSON over HTTP/1.1 to the resources under one base address, the transport of a REST client:
 * requests with a JSON body or none, a request that meets a rebalance (HTTP 409) sent again for up
 * to 30 s, answers parsed as JSON, and path segments encoded. What an answer means is the client's
 * business.
 */
public final class JsonHttp {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(5))
          .version(HttpClient.Version.HTTP_1_1)
          .build();

  private final URI base;

  /** {@code base} ends with a slash: paths resolve below it. */
  public JsonHttp(URI base) {
    this.base = base;
  }

  /**
   * Sends the request, and again while the answer is 409 (a rebalance in progress), for up to 30 s;
   * returns the last answer. I/O failures and interrupts are thrown unchecked.
   */
  public HttpResponse<String> sendRetryingConflicts(String method, String path, String jsonBody) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      HttpResponse<String> response = sendUnchecked(method, path, jsonBody);
      if (response.statusCode() == 409 && System.nanoTime() < deadline) {
        await().pollDelay(Duration.ofMillis(250)).until(() -> true);
        continue;
      }
      return response;
    }
  }

  private HttpResponse<String> sendUnchecked(String method, String path, String jsonBody) {
    try {
      return send(method, path, jsonBody);
    } catch (IOException e) {
      throw new UncheckedIOException(method + " " + base + path + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted: " + method + " " + path, e);
    }
  }

  /** Sends the request once ({@code jsonBody} null: none). */
  public HttpResponse<String> send(String method, String path, String jsonBody)
      throws IOException, InterruptedException {
    HttpRequest.BodyPublisher body =
        jsonBody == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(jsonBody, StandardCharsets.UTF_8);
    HttpRequest request =
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(90))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .method(method, body)
            .build();
    return HTTP.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  /** An answer's body as JSON (an empty object when there is none). */
  public static JsonNode parse(String body) {
    if (body == null || body.isBlank()) {
      return JSON.createObjectNode();
    }
    try {
      return JSON.readTree(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Connect answered with invalid JSON: " + body, e);
    }
  }

  /** {@code segment} encoded for a path (a space as {@code %20}, not {@code +}). */
  public static String segment(String segment) {
    return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
