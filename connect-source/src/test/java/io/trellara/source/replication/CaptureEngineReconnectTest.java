package io.trellara.source.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.trellara.source.capture.ddl.CapturedTables;
import io.trellara.source.pg.PgEndpoint;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine against a port where no server listens: every attempt is refused (SQLSTATE 08001). */
class CaptureEngineReconnectTest {
  @TempDir Path spill;

  private SourceSettings settings(long reconnectMaxDurationMs) throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: connections to it are refused
    }
    return settings(reconnectMaxDurationMs, port);
  }

  private SourceSettings settings(long reconnectMaxDurationMs, int port) {
    PgEndpoint endpoint =
        new PgEndpoint("127.0.0.1", port, "db", "u", "", "disable", "", "", "", "");
    BoundarySettings strict = BoundarySettings.strict();
    return new SourceSettings(
        endpoint,
        "src",
        "db",
        "flow",
        "slot",
        "pub",
        false,
        List.of(),
        2,
        true,
        1000,
        reconnectMaxDurationMs,
        0,
        true,
        false,
        spill,
        1 << 20,
        1 << 20,
        16,
        1 << 20,
        strict,
        CapturedTables.NONE);
  }

  @Test
  void aRefusedConnectionIsRetriedWhilePollKeepsReturningAndCloseEndsTheWait() throws Exception {
    SourceSettings s = settings(600_000);
    CaptureEngine engine = new CaptureEngine(s, 0, StrictPipeline.factory(s));
    engine.start();
    try {
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> engine.metrics().lastReplicationError() != null);
      assertThat(engine.metrics().lastReplicationError()).contains("refused");
      assertThat(engine.poll(10)).isEmpty(); // no failure while reconnecting
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> engine.metrics().disconnectedMillis(System.currentTimeMillis()) > 0);
      assertThat(engine.metrics().reconnects()).isZero();
      // past 0.5 + 1 + 2 s of delays the engine waits 4 s before its next attempt: close must not
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> engine.metrics().disconnectedMillis(System.currentTimeMillis()) > 3_700);
      long closing = System.nanoTime();
      engine.close();
      assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(Duration.ofSeconds(2));
    } finally {
      engine.close();
    }
    assertThat(engine.capturing()).isFalse();
  }

  @Test
  void afterTheMaximumDurationTheEngineFailsWithTheLastCause() throws Exception {
    SourceSettings s = settings(1_000);
    CaptureEngine engine = new CaptureEngine(s, 0, StrictPipeline.factory(s));
    engine.start();
    try {
      await().atMost(Duration.ofSeconds(30)).until(() -> !engine.capturing());
      assertThatThrownBy(() -> engine.poll(10))
          .isInstanceOf(CaptureFailedException.class)
          .hasMessageContaining("refused")
          .hasRootCauseInstanceOf(java.net.ConnectException.class);
    } finally {
      engine.close();
    }
  }

  @Test
  void zeroMaximumDurationFailsAtTheFirstLoss() throws Exception {
    SourceSettings s = settings(0);
    CaptureEngine engine = new CaptureEngine(s, 0, StrictPipeline.factory(s));
    engine.start();
    try {
      await().atMost(Duration.ofSeconds(20)).until(() -> !engine.capturing());
      assertThatThrownBy(() -> engine.poll(10)).isInstanceOf(CaptureFailedException.class);
      assertThat(engine.metrics().reconnects()).isZero();
    } finally {
      engine.close();
    }
  }

  @Test
  void closeEndsACaptureThreadStuckOnAServerThatAcceptsButNeverAnswers() throws Exception {
    try (ServerSocket silent =
        new ServerSocket(0)) { // the kernel completes the handshake; nobody answers
      SourceSettings s = settings(600_000, silent.getLocalPort());
      CaptureEngine engine = new CaptureEngine(s, 0, StrictPipeline.factory(s));
      engine.start();
      await()
          .during(Duration.ofSeconds(1))
          .atMost(Duration.ofSeconds(5))
          .until(() -> engine.capturing() && engine.metrics().lastReplicationError() == null);
      long closing = System.nanoTime();
      engine.close();
      assertThat(engine.capturing()).isFalse();
      // well before the 20 s login time-out: close interrupted the attempt
      assertThat(Duration.ofNanos(System.nanoTime() - closing))
          .isLessThan(Duration.ofSeconds(PgEndpoint.LOGIN_TIMEOUT_SECONDS / 2));
    }
  }
}
