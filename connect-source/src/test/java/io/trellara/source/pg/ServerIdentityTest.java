package io.trellara.source.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ServerIdentityTest {
  private static final ServerIdentity T1 = new ServerIdentity("7715538798466393095", 1);

  @Test
  void theFirstConnectionAndTheSameServerGoOnSilently() {
    assertThat(ServerIdentity.continuation(null, T1, "s")).isNull();
    assertThat(ServerIdentity.continuation(T1, new ServerIdentity("7715538798466393095", 1), "s"))
        .isNull();
  }

  @Test
  void aPromotedStandbysHigherTimelineGoesOnWithAWarning() {
    assertThat(ServerIdentity.continuation(T1, new ServerIdentity("7715538798466393095", 2), "s"))
        .contains("regained on timeline 2 (was 1")
        .contains("a promoted standby");
  }

  @Test
  void anOlderTimelineOrAnotherClusterStopsTheTaskNamingBoth() {
    assertThatThrownBy(
            () ->
                ServerIdentity.continuation(new ServerIdentity("7715538798466393095", 2), T1, "s"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("regained on timeline 1, older than timeline 2")
        .hasMessageContaining("database.hostname");
    assertThatThrownBy(() -> ServerIdentity.continuation(T1, new ServerIdentity("123", 1), "s"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("another cluster (system identifier 123, timeline 1)");
  }
}
