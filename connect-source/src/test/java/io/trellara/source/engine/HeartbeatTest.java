package io.trellara.source.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class HeartbeatTest {
  @Test
  void onlyNonTransactionalMessagesWithTheHeartbeatPrefixAreHeartbeats() {
    assertThat(Heartbeat.isHeartbeat(false, "trellara.heartbeat")).isTrue();
    assertThat(Heartbeat.isHeartbeat(true, "trellara.heartbeat")).isFalse();
    assertThat(Heartbeat.isHeartbeat(false, AssemblingPipeline.DDL_PREFIX)).isFalse();
    assertThat(Heartbeat.isHeartbeat(true, AssemblingPipeline.DDL_PREFIX)).isFalse();
  }

  @Test
  void aFailedBeatIsRecordedAndNeverThrown() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: connections to it are refused
    }
    CaptureMetrics metrics = new CaptureMetrics();
    Heartbeat heartbeat =
        new Heartbeat(
            new PgEndpoint("127.0.0.1", port, "db", "u", "", "disable", "", "", "", ""),
            "slot",
            1000,
            metrics);
    heartbeat.beat();
    heartbeat.beat();
    assertThat(metrics.heartbeatsSent()).isZero();
    assertThat(metrics.lastHeartbeatError()).contains("SQLSTATE 08001");
  }
}
