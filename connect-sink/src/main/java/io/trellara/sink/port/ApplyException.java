package io.trellara.sink.port;

import io.trellara.connect.common.retry.FailureAction;
import io.trellara.protocol.LogText;

/**
 * Apply stopped: nothing of the target transaction in progress was committed. The message names
 * what a person needs to act: the reason, the target relation, the event key and the SQLSTATE (when
 * the database refused).
 */
public class ApplyException extends RuntimeException {
  /** Why apply stopped, for programmatic handling and metrics. */
  public enum Reason {
    /** The database refused a statement (see {@link #sqlState()}). */
    DATABASE_ERROR(FailureAction.FAIL, true),
    /**
     * Transient database failures persisted for longer than the retry time ({@code
     * retry.max.duration.ms}).
     */
    RETRIES_EXHAUSTED(FailureAction.FAIL, false),
    /** An update or delete matched no target row: the target diverged from the source. */
    ROW_NOT_FOUND(FailureAction.FAIL, true),
    /**
     * The insert half of an ownership move lacks values (unchanged-TOAST) and the row its delete
     * half removes, which it carries them over from, is not on the target (or the delete half does
     * not immediately precede it): no row with missing values is inserted.
     */
    MOVED_ROW_NOT_FOUND(FailureAction.FAIL, true),
    /** An update or delete carries no usable key column. */
    MISSING_KEY_COLUMN(FailureAction.FAIL, false),
    /** The relation is not on the allowlist or its name cannot be used safely. */
    RELATION_REFUSED(FailureAction.FAIL, false),
    /** The target table does not exist and creating it is not enabled (or impossible). */
    MISSING_TARGET_TABLE(FailureAction.FAIL, false),
    /** The DDL policy is {@code fail}. */
    DDL_REFUSED(FailureAction.FAIL, false),
    /** The row image cannot be applied as it is (e.g. an insert with an unchanged-TOAST column). */
    UNSUPPORTED_CHANGE(FailureAction.FAIL, false),
    /**
     * The boundary messages of the strict topic are out of sequence: a manifest not followed by its
     * commit marker, a commit marker without its manifest, a partitioned chunk on another Kafka
     * partition than its lane. The transaction cannot be proven complete, so nothing of it is
     * applied.
     */
    BARRIER_SEQUENCE(FailureAction.FAIL, false),
    /**
     * A transaction not recorded as applied arrived with a commit LSN at or below the newest
     * applied for its flow: strict order is broken (a forged or re-ordered record, or another
     * source history).
     */
    OUT_OF_ORDER(FailureAction.FAIL, true),
    /** The key columns of a change do not match the target table's primary key by name. */
    KEY_COLUMNS_MISMATCH(FailureAction.FAIL, false),
    /** An update or delete matched more than one target row. */
    MULTIPLE_ROWS_MATCHED(FailureAction.FAIL, false),
    /**
     * A schema change of a captured relation cannot be derived safely (a rename, a key change, a
     * type).
     */
    SCHEMA_CHANGE_REFUSED(FailureAction.FAIL, false),
    /**
     * A column definition names a type the sink does not create columns of: not a built-in (nor an
     * array of one) and not listed in {@code target.types.allowed} (a table's row type, a type of
     * the sink's own schema).
     */
    TYPE_REFUSED(FailureAction.FAIL, false),
    /**
     * A source's initial snapshot would load a target table that holds rows
     * (snapshot.target.nonempty=fail).
     */
    SNAPSHOT_TARGET_NOT_EMPTY(FailureAction.FAIL, false),
    /**
     * snapshot.apply=per_table: rows of a snapshot table follow another table's after that table
     * was committed, so the table cannot be made whole in one target transaction.
     */
    SNAPSHOT_TABLE_INTERLEAVED(FailureAction.FAIL, false),
    /**
     * The first record Kafka delivered for a partition lies beyond the position the target's
     * progress records: the records between are no longer in the topic (retention, deleted records,
     * a re-created topic).
     */
    PROGRESS_GAP(FailureAction.FAIL, false),
    /**
     * Another task has claimed a partition this task applied (Kafka assigned it elsewhere while
     * this task was busy past {@code max.poll.interval.ms}, or a second deployment of the sink
     * writes the same target): the target transaction is rolled back, and this task stops applying
     * the partition.
     */
    FENCED(FailureAction.FENCE, false),
    /**
     * A target statement, COPY or lock wait went without progress past {@code
     * apply.stall.timeout.ms}: it was cancelled on the server and rolled back, so its locks are
     * released; the message names the stage, the statement, the table, the event key and what it
     * waited for (the lock holder's pid when it was a lock).
     */
    STALLED(FailureAction.FAIL, false),
    /**
     * A record arrived under the identity of a transaction recorded as applied, with another body
     * (its envelope's or manifest's checksum differs from the recorded one): one of the two is
     * forged. Refused, not skipped: nothing of it is applied and its offset is not committed.
     */
    DUPLICATE_IDENTITY_CONFLICT(FailureAction.FAIL, false),
    /**
     * A transaction's commit LSN lies further past its flow's newest applied position (or, first of
     * its flow, past its source's) than {@code order.max.lsn.advance.bytes}: one such record would
     * put every later real transaction of the flow out of order. Nothing of it is applied and no
     * position moves.
     */
    LSN_TOO_FAR_AHEAD(FailureAction.FAIL, false),
    /**
     * A transaction of a flow whose source id or dataset id is not among those the operator named
     * ({@code source.ids}, {@code dataset.ids}). Nothing of it is applied.
     */
    FLOW_NOT_CONFIGURED(FailureAction.FAIL, false),
    /**
     * The barrier of a transaction that was set aside arrived: its chunks would have taken their
     * flow past {@code staging.flow.max.bytes} of chunks whose barriers have not completed, so they
     * were not staged. Nothing of it is applied and no position passes its first chunk set aside;
     * raise the bound and restart the task, which reads it again and applies it whole.
     */
    STAGING_FLOW_FULL(FailureAction.FAIL, false);

    private final FailureAction action;
    private final boolean fencingMayExplain;

    Reason(FailureAction action, boolean fencingMayExplain) {
      this.action = action;
      this.fencingMayExplain = fencingMayExplain;
    }

    /** What the task does about it: the sink's row of the one error table. */
    public FailureAction action() {
      return action;
    }

    /**
     * True when another task applying the same transactions at the same time would cause it (its
     * row is there already, or gone): if another task has claimed this task's partitions, that is
     * what happened, and the task is fenced rather than failed.
     */
    public boolean fencingMayExplain() {
      return fencingMayExplain;
    }
  }

  private final Reason reason;
  private final String relation;
  private final String eventKey;
  private final String sqlState;

  public ApplyException(
      Reason reason,
      String relation,
      String eventKey,
      String sqlState,
      String detail,
      Throwable cause) {
    super(message(reason, relation, eventKey, sqlState, detail), cause);
    this.reason = reason;
    this.relation = relation;
    this.eventKey = eventKey;
    this.sqlState = sqlState;
  }

  public ApplyException(Reason reason, String relation, String eventKey, String detail) {
    this(reason, relation, eventKey, null, detail, null);
  }

  private static String message(
      Reason reason, String relation, String eventKey, String sqlState, String detail) {
    // relation names, keys and details quote the wire's strings: escaped, so the message (and the
    // log line of the failed task) is one line whatever a topic writer put in them
    StringBuilder b =
        new StringBuilder(160).append(reason).append(": ").append(LogText.escape(detail));
    if (relation != null) {
      b.append(" [relation ").append(LogText.escape(relation)).append(']');
    }
    if (eventKey != null) {
      b.append(" [event ").append(LogText.escape(eventKey)).append(']');
    }
    if (sqlState != null) {
      b.append(" [SQLSTATE ").append(sqlState).append(']');
    }
    return b.toString();
  }

  public Reason reason() {
    return reason;
  }

  /** The target relation as quoted SQL, or null when the failure is not about one relation. */
  public String relation() {
    return relation;
  }

  /** {@code {source_id}:{commit_lsn}:{transaction_id}:{total_order}} (or a range), or null. */
  public String eventKey() {
    return eventKey;
  }

  public String sqlState() {
    return sqlState;
  }
}
