package io.trellara.source.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.source.capture.CaptureException;
import io.trellara.source.capture.EnvelopeTooLargeException;
import io.trellara.source.pgoutput.PgOutputProtocolException;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketException;
import java.nio.file.NoSuchFileException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;

class ReplicationErrorsTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "08000", "08001", "08003", "08006", "08P01", "57P01", "57P02", "57P03", "53300", "55006"
      })
  void connectionLossStatesAreTransient(String state) {
    assertThat(ReplicationErrors.isConnectionLoss(new SQLException("lost", state))).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"28P01", "28000", "42704", "42501", "XX000", "22021", "53200"})
  void otherStatesAreFatal(String state) {
    assertThat(ReplicationErrors.isConnectionLoss(new SQLException("no", state))).isFalse();
  }

  @Test
  void thePgjdbcErrorOfAServerRestartIsTransient() {
    // what the task died of before: "Database connection failed when writing to copy", Connection
    // reset
    PSQLException e =
        new PSQLException(
            "Database connection failed when writing to copy",
            PSQLState.CONNECTION_FAILURE,
            new SocketException("Connection reset by peer"));
    assertThat(ReplicationErrors.isConnectionLoss(e)).isTrue();
    assertThat(
            ReplicationErrors.isConnectionLoss(
                new PSQLException(
                    "This connection has been closed.", PSQLState.CONNECTION_DOES_NOT_EXIST)))
        .isTrue();
  }

  @Test
  void aSocketOrEofCauseWithoutSqlStateIsTransient() {
    assertThat(
            ReplicationErrors.isConnectionLoss(
                new SQLException("copy failed", (String) null, new EOFException())))
        .isTrue();
    assertThat(
            ReplicationErrors.isConnectionLoss(
                new IllegalStateException(
                    "cannot send a status update", new SocketException("Broken pipe"))))
        .isTrue();
    assertThat(ReplicationErrors.isConnectionLoss(new IOException("stream closed"))).isTrue();
  }

  @Test
  void parserCaptureAndEnvelopeErrorsAreFatalWhateverTheirCause() {
    assertThat(
            ReplicationErrors.isConnectionLoss(
                new PgOutputProtocolException("truncated", (byte) 'I', "tuple", 3, 2)))
        .isFalse();
    assertThat(
            ReplicationErrors.isConnectionLoss(
                new CaptureException(
                    "stream_order", "Commit without Begin", new SocketException("reset"))))
        .isFalse();
    assertThat(
            ReplicationErrors.isConnectionLoss(
                new EnvelopeTooLargeException("42", "0/1", 10, 2_000_000, 1_000_000)))
        .isFalse();
  }

  @Test
  void localFileErrorsOfSpillingAreFatal() {
    assertThat(
            ReplicationErrors.isConnectionLoss(
                new UncheckedIOException(
                    "cannot create a spill file", new IOException("No space left on device"))))
        .isFalse();
    assertThat(ReplicationErrors.isConnectionLoss(new NoSuchFileException("/spill/tx-1")))
        .isFalse();
  }

  @Test
  void anErrorWithNothingDecisiveIsFatal() {
    assertThat(ReplicationErrors.isConnectionLoss(new IllegalArgumentException("unknown message")))
        .isFalse();
    assertThat(ReplicationErrors.isConnectionLoss(new SQLException("no state"))).isFalse();
  }
}
