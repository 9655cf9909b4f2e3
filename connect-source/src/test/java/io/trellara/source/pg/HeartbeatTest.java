package io.trellara.source.pg;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HeartbeatTest {
  @Test
  void onlyNonTransactionalMessagesWithTheHeartbeatPrefixAreHeartbeats() {
    assertThat(Heartbeat.isHeartbeat(false, "trellara.heartbeat")).isTrue();
    assertThat(Heartbeat.isHeartbeat(true, "trellara.heartbeat")).isFalse();
    assertThat(Heartbeat.isHeartbeat(false, "trellara.ddl")).isFalse();
    assertThat(Heartbeat.isHeartbeat(true, "trellara.ddl")).isFalse();
  }

  @Test
  void aFailedBeatIsRecordedAndNeverThrown() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: connections to it are refused
    }
    List<Long> sent = new ArrayList<>();
    List<String> failed = new ArrayList<>();
    Heartbeat.Listener metrics =
        new Heartbeat.Listener() {
          @Override
          public void heartbeatSent(long lsn) {
            sent.add(lsn);
          }

          @Override
          public void heartbeatFailed(String cause) {
            failed.add(cause);
          }
        };
    Heartbeat heartbeat =
        new Heartbeat(
            new PgEndpoint("127.0.0.1", port, "db", "u", "", "disable", "", "", "", ""),
            "slot",
            1000,
            metrics);
    heartbeat.beat();
    heartbeat.beat();
    assertThat(sent).isEmpty();
    assertThat(failed).hasSize(2);
    assertThat(failed.get(1)).contains("SQLSTATE 08001");
  }
}
