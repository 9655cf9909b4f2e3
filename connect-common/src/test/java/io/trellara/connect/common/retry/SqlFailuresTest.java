package io.trellara.connect.common.retry;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.EOFException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

class SqlFailuresTest {
  @Test
  void connectionLossReconnects() {
    assertThat(SqlFailures.classify(new SQLException("reset", "08006")))
        .isEqualTo(FailureAction.RECONNECT);
    assertThat(SqlFailures.classify(new SQLException("shutdown", "57P01")))
        .isEqualTo(FailureAction.RECONNECT);
    assertThat(SqlFailures.classify(new RuntimeException(new EOFException())))
        .isEqualTo(FailureAction.RECONNECT);
  }

  @Test
  void serializationFailuresRetry() {
    assertThat(SqlFailures.classify(new SQLException("x", "40001"))).isEqualTo(FailureAction.RETRY);
    assertThat(SqlFailures.classify(new SQLException("x", "40P01"))).isEqualTo(FailureAction.RETRY);
  }

  @Test
  void everythingElseFails() {
    assertThat(SqlFailures.classify(new SQLException("no such table", "42P01")))
        .isEqualTo(FailureAction.FAIL);
    assertThat(SqlFailures.classify(new SQLException("cancelled", "57014")))
        .isEqualTo(FailureAction.FAIL);
    assertThat(SqlFailures.classify(new IllegalStateException("bug")))
        .isEqualTo(FailureAction.FAIL);
  }

  @Test
  void theFirstDecisiveLinkWins() {
    SQLException outer = new SQLException("wrapper without a state");
    outer.initCause(new SQLException("serialization", "40001"));
    assertThat(SqlFailures.classify(outer)).isEqualTo(FailureAction.RETRY);
    SQLException batch = new SQLException("batch entry failed", "");
    batch.setNextException(new SQLException("deadlock", "40P01"));
    assertThat(SqlFailures.classify(batch)).isEqualTo(FailureAction.RETRY);
    assertThat(SqlFailures.sqlState(batch)).isEqualTo("");
  }
}
