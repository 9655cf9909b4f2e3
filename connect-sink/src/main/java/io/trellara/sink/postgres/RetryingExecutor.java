package io.trellara.sink.postgres;

import io.trellara.connect.common.Ticker;
import io.trellara.connect.common.liveness.Stage;
import io.trellara.connect.common.retry.Backoff;
import io.trellara.connect.common.retry.Sleeper;
import io.trellara.connect.common.retry.SqlFailures;
import io.trellara.protocol.LogText;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.RetryPause;
import io.trellara.sink.port.TargetProgressLost;
import io.trellara.sink.postgres.checkpoint.AsyncCommits;
import io.trellara.sink.postgres.checkpoint.CommitOrder;
import io.trellara.sink.postgres.session.ConnectionFactory;
import io.trellara.sink.postgres.session.SessionWatch;
import io.trellara.sink.postgres.session.TargetSession;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Set;

/**
 * Runs every unit of work on the target in one target transaction, and again after a failure the
 * one error table ({@link SqlFailures}) says to retry (a serialization failure) or to reconnect for
 * (SQLSTATE class 08, 57P01-57P03, a closed connection: on a fresh connection), with the one retry
 * policy ({@link Backoff}: bounded exponential backoff with jitter for up to {@code
 * retry.max.duration.ms}); retries are logged with their SQLSTATE. It owns the session and the
 * COMMIT: a unit does its work and returns what it did ({@link Done}); the executor commits it,
 * then makes its commit order known and runs its after-commit step. A COMMIT whose outcome was lost
 * is told to the next attempt ({@link Attempt#commitUnknown()}), whose dedup check then finds those
 * transactions applied by us. A connection lost while asynchronous commits were not known to be
 * flushed stops the retry once the target is reachable again ({@link AsyncCommits}): the task reads
 * its progress from the target again first. Work the watchdog cancelled fails as {@code STALLED}.
 * Anything else rolls back and is thrown: protocol violations as they are, everything else as an
 * {@link ApplyException} naming the relation and event key the session was at.
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
  private final Backoff.Policy policy;
  private final java.util.concurrent.atomic.AtomicLong retries;
  private final Sleeper sleeper;
  private final Ticker ticker;
  private final CommitOrder order;
  private final AsyncCommits asyncCommits;
  private final SessionWatch watch;
  private TargetSession session;

  public RetryingExecutor(
      ConnectionFactory connections,
      Backoff.Policy policy,
      java.util.concurrent.atomic.AtomicLong retries,
      Sleeper sleeper,
      Ticker ticker,
      CommitOrder order,
      AsyncCommits asyncCommits,
      SessionWatch watch) {
    this.asyncCommits = Objects.requireNonNull(asyncCommits, "asyncCommits");
    this.connections = Objects.requireNonNull(connections, "connections");
    this.policy = Objects.requireNonNull(policy, "policy");
    this.retries = Objects.requireNonNull(retries, "retries");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.order = Objects.requireNonNull(order, "order");
    this.watch = Objects.requireNonNull(watch, "watch");
  }

  /**
   * Runs {@code unit} until it commits, or throws what stops it; {@code what} names it in logs and
   * errors.
   */
  public <T> T run(String what, Unit<T> unit) {
    Set<FlowKey> commitUnknown = Set.of();
    Backoff backoff = new Backoff(policy, ticker);
    for (int number = 1; ; number++) {
      Attempt attempt = new Attempt(number, commitUnknown, order.pending());
      Done<T> done = null;
      Stage stage = watch.stage();
      try {
        if (stage != null) {
          stage.waiting(what);
        }
        TargetSession s = session();
        asyncCommits.checkProgress(); // the target is reachable: first, did it lose commits?
        done = unit.run(s, attempt);
        s.commit();
        asyncCommits.committed(policyCommitsAsynchronously);
        order.committed(attempt.order());
        done.afterCommit().run();
        return done.result();
      } catch (TargetProgressLost e) {
        throw e;
      } catch (SQLException | RuntimeException e) {
        String relation = session == null ? null : session.relation();
        String eventKey = session == null || session.eventKey() == null ? what : session.eventKey();
        String stalled = session == null ? null : session.stalled();
        if (stalled != null) {
          discardOrRollback(true);
          throw stalled(stalled, relation, eventKey, e);
        }
        boolean retry = isTransient(session, e);
        discardOrRollback(retry);
        if (!retry) {
          throw translate(e, relation, eventKey);
        }
        if (done != null) {
          commitUnknown = done.committing(); // the work was done: the COMMIT itself failed
        }
        long delay = backoff.nextDelayMillis();
        if (delay < 0) {
          LOG.error(
              "Giving up on {} after {} ms and {} attempts: transient failures persisted (SQLSTATE"
                  + " {})",
              LogText.escape(eventKey),
              backoff.outageMillis(),
              number,
              SqlFailures.sqlState(e));
          throw new ApplyException(
              ApplyException.Reason.RETRIES_EXHAUSTED,
              relation,
              LogText.escape(eventKey),
              SqlFailures.sqlState(e),
              "transient failure persisted for "
                  + backoff.outageMillis()
                  + " ms through "
                  + number
                  + " attempts (retry.max.duration.ms "
                  + policy.deadline().toMillis()
                  + "): "
                  + e.getMessage(),
              e);
        }
        if (backoff.worthLogging()) {
          LOG.warn(
              "Transient failure applying {} (SQLSTATE {}, attempt {}, {} ms so far); retrying on a"
                  + " fresh connection in {} ms: {}",
              LogText.escape(eventKey),
              SqlFailures.sqlState(e),
              number,
              backoff.outageMillis(),
              delay,
              e.getMessage());
        }
        retries.incrementAndGet();
        pause(delay);
      } finally {
        if (stage != null) {
          stage.idle();
        }
      }
    }
  }

  /** Work outside a transaction on the open session ({@link #maintain}). */
  @FunctionalInterface
  public interface Maintenance<T> {
    T run(TargetSession session) throws SQLException;
  }

  /**
   * Runs housekeeping between units on the session already open (none is opened for it; empty when
   * there is none), bounded by the same watchdog stage as a unit, never retried: a failure is
   * thrown to the caller, and a session it broke is discarded, so the next unit opens a fresh one.
   */
  public <T> java.util.Optional<T> maintain(String what, Maintenance<T> work) throws SQLException {
    if (session == null || session.state() != TargetSession.State.IDLE) {
      return java.util.Optional.empty();
    }
    Stage stage = watch.stage();
    try {
      if (stage != null) {
        stage.waiting(what);
      }
      return java.util.Optional.ofNullable(work.run(session));
    } catch (SQLException | RuntimeException e) {
      if (session != null && session.isClosed()) {
        discardOrRollback(true);
      }
      throw e;
    } finally {
      if (stage != null) {
        stage.idle();
      }
    }
  }

  private boolean policyCommitsAsynchronously;

  /** Whether the units' commits are asynchronous ({@code synchronous_commit=off}). */
  public RetryingExecutor asynchronousCommits(boolean asynchronous) {
    this.policyCommitsAsynchronously = asynchronous;
    return this;
  }

  /** The failure a watchdog-cancelled unit ends in. */
  public static ApplyException stalled(
      String stall, String relation, String eventKey, Throwable cause) {
    return new ApplyException(
        ApplyException.Reason.STALLED,
        relation,
        eventKey,
        SqlFailures.sqlState(cause),
        "STALLED: "
            + stall
            + "; the statement was cancelled on the target and its transaction rolled back, so"
            + " its locks are released. Nothing of it is applied; the task restarts from the"
            + " target's progress once the cause is gone (apply.stall.timeout.ms sets the bound)",
        cause);
  }

  /** Waits before a retry (the sleeper is replaceable in tests). */
  public void pause(long millis) {
    RetryPause.pause(sleeper, millis);
  }

  /**
   * Retried: what the one error table says to retry or reconnect for, or any SQL failure on a
   * connection that is closed. Never a refusal of the sink's own ({@link ApplyException}, {@link
   * ProtocolViolationException}).
   */
  public static boolean isTransient(TargetSession s, Exception e) {
    if (e instanceof ApplyException || e instanceof ProtocolViolationException) {
      return false;
    }
    return SqlFailures.classify(e).retries()
        || (e instanceof SQLException && s != null && s.isClosed());
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
          SqlFailures.sqlState(e),
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
      session = TargetSession.open(connections, watch.stage());
      watch.watch(session);
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
      watch.watch(null);
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
