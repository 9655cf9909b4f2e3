package io.trellara.sink.postgres;

/** Handling of an insert whose key already exists on the target. */
public enum InsertConflictPolicy {
  /** The unique violation stops the transaction (default: the target diverged). */
  FAIL,
  /** {@code INSERT ... ON CONFLICT (key columns) DO UPDATE SET ...}. */
  UPSERT
}
