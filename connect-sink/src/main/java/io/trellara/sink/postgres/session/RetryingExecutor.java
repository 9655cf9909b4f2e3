package io.trellara.sink.postgres.session;

import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.TargetProgressLost;
import io.trellara.sink.postgres.ApplyMetrics;
import io.trellara.sink.postgres.ApplyOptions;
import io.trellara.sink.postgres.TransactionApplier;
import io.trellara.sink.postgres.checkpoint.AsyncCommits;
import io.trellara.sink.postgres.checkpoint.CommitOrder;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Runs every unit of work on the target in one target transaction, and again on a fresh connection
 * after a transient failure (SQLSTATE class 08, 40001, 40P01, 57P01-57P03, a closed connection),
 * with bounded exponential backoff for up to {@code retry.max.duration.ms}; each retry is logged
 * with its SQLSTATE. It owns the session and the COMMIT: a unit does its work and returns what it
 * did ({@link Done}); the executor commits it, then makes its commit order known and runs its
 * after-commit step. A COMMIT whose outcome was lost is told to the next attempt ({@link
 * Attempt#commitUnknown()}), whose dedup check then finds those transactions applied by us. A
 * connection lost while asynchronous commits were not known to be flushed stops the retry once the
 * target is reachable again ({@link AsyncCommits}): the task reads its progress from the target
 * again first. Anything else rolls back and is thrown: protocol violations as they are, everything
 * else as an {@link ApplyException} naming the relation and event key the session was at.
 */
public final class RetryingExecutor implements AutoCloseable {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(RetryingExecutor.class);

  /**
   * One attempt of a unit of work: its number, and the transactions a lost COMMIT may have applied.
   */
  public record Attempt(int number, Set<FlowKey> commitUnknown, CommitOrder.Pending order) {}

  /**
   * What a unit did, before its COMMIT: its result, the transactions the COMMIT applies (for a lost
   * COMMIT), and what to do once committed (count it).
   */
  public record Done<T>(T result, Set<FlowKey> committing, Runnable afterCommit) {
    public static <T> Done<T> of(T result) {
      return new Done<>(result, Set.of(), () -> {});
    }
  }

  @FunctionalInterface
  public interface Unit<T> {
    Done<T> run(TargetSession session, Attempt attempt) throws SQLException;
  }

  private final ConnectionFactory connections;
  private final ApplyOptions options;
  private final ApplyMetrics metrics;
  private final TransactionApplier.Sleeper sleeper;
  private final LongSupplier nanoClock;
  private final CommitOrder order;
  private final AsyncCommits asyncCommits;
  private TargetSession session;

  public RetryingExecutor(
      ConnectionFactory connections,
      ApplyOptions options,
      ApplyMetrics metrics,
      TransactionApplier.Sleeper sleeper,
      LongSupplier nanoClock,
      CommitOrder order,
      AsyncCommits asyncCommits) {
    this.asyncCommits = Objects.requireNonNull(asyncCommits, "asyncCommits");
    this.connections = Objects.requireNonNull(connections, "connections");
    this.options = Objects.requireNonNull(options, "options");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    this.order = Objects.requireNonNull(order, "order");
  }

  private static final long LOG_EVERY_MILLIS = 30_000;

  /**
   * Runs {@code unit} until it commits, or throws what stops it; {@code what} names it in logs and
   * errors.
   */
  public <T> T run(String what, Unit<T> unit) {
    Set<FlowKey> commitUnknown = Set.of();
    long backoff = Math.max(1, options.initialBackoff().toMillis());
    long started = nanoClock.getAsLong();
    long budgetMillis = options.maxRetryDuration().toMillis();
    long loggedAtMillis = 0;
    for (int number = 1; ; number++) {
      Attempt attempt = new Attempt(number, commitUnknown, order.pending());
      Done<T> done = null;
      try {
        TargetSession s = session();
        asyncCommits.checkProgress(); // the target is reachable: first, did it lose commits?
        done = unit.run(s, attempt);
        s.connection.commit();
        asyncCommits.committed(options.synchronousCommitOff());
        order.committed(attempt.order());
        done.afterCommit().run();
        return done.result();
      } catch (TargetProgressLost e) {
        throw e;
      } catch (SQLException | RuntimeException e) {
        boolean transientFailure =
            !(e instanceof ApplyException)
                && !(e instanceof ProtocolViolationException)
                && isTransient(session, e);
        String relation = session == null ? null : session.relation;
        String eventKey = session == null || session.eventKey() == null ? what : session.eventKey();
        discardOrRollback(transientFailure);
        if (!transientFailure) {
          throw translate(e, relation, eventKey);
        }
        if (done != null) {
          commitUnknown = done.committing(); // the work was done: the COMMIT itself failed
        }
        long elapsedMillis = (nanoClock.getAsLong() - started) / 1_000_000L;
        if (elapsedMillis + backoff > budgetMillis) {
          LOG.error(
              "Giving up on {} after {} ms and {} attempts: transient failures persisted (SQLSTATE {})",
              eventKey,
              elapsedMillis,
              number,
              SqlStates.of(e));
          throw new ApplyException(
              ApplyException.Reason.RETRIES_EXHAUSTED,
              relation,
              eventKey,
              SqlStates.of(e),
              "transient failure persisted for "
                  + elapsedMillis
                  + " ms through "
                  + number
                  + " attempts (retry.max.duration.ms "
                  + budgetMillis
                  + "): "
                  + e.getMessage(),
              e);
        }
        if (number <= 3 || elapsedMillis - loggedAtMillis >= LOG_EVERY_MILLIS) {
          loggedAtMillis = elapsedMillis; // a long outage: a line per 30 s after the first three
          LOG.warn(
              "Transient failure applying {} (SQLSTATE {}, attempt {}, {} ms so far); retrying on a"
                  + " fresh connection in {} ms: {}",
              eventKey,
              SqlStates.of(e),
              number,
              elapsedMillis,
              backoff,
              e.getMessage());
        }
        metrics.retries.incrementAndGet();
        pause(backoff);
        backoff = Math.min(backoff * 2, Math.max(1, options.maxBackoff().toMillis()));
      }
    }
  }

  /** Waits before a retry (the sleeper is replaceable in tests). */
  public void pause(long millis) {
    try {
      sleeper.sleep(millis);
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new ApplyException(
          ApplyException.Reason.RETRIES_EXHAUSTED,
          null,
          null,
          null,
          "interrupted while waiting to retry",
          ie);
    }
  }

  /** A transient SQLSTATE, or any SQL failure on a connection that is closed. */
  public static boolean isTransient(TargetSession s, Exception e) {
    if (SqlStates.isTransient(e)) {
      return true;
    }
    try {
      return e instanceof SQLException && s != null && s.connection.isClosed();
    } catch (SQLException closedCheck) {
      return true;
    }
  }

  public static RuntimeException translate(Exception e, String relation, String eventKey) {
    if (e instanceof ApplyException ae) {
      return ae;
    }
    if (e instanceof ProtocolViolationException pve) {
      return pve;
    }
    if (e instanceof SQLException) {
      return new ApplyException(
          ApplyException.Reason.DATABASE_ERROR,
          relation,
          eventKey,
          SqlStates.of(e),
          "the target refused the change: " + e.getMessage(),
          e);
    }
    return new ApplyException(
        ApplyException.Reason.UNSUPPORTED_CHANGE,
        relation,
        eventKey,
        null,
        "apply failed: " + e,
        e);
  }

  private TargetSession session() throws SQLException {
    if (session == null) {
      session = TargetSession.open(connections);
    }
    return session;
  }

  private void discardOrRollback(boolean discard) {
    if (session == null) {
      return;
    }
    order.forget(); // re-read from the target: another task may have applied meanwhile
    if (discard || !session.rollbackQuietly()) {
      session.close();
      session = null;
      asyncCommits.connectionLost();
    } else {
      session
          .forgetTables(); // a table created or altered by the rolled-back transaction is as it was
    }
  }

  @Override
  public void close() {
    if (session != null) {
      session.rollbackQuietly();
      session.close();
      session = null;
    }
  }
}
