package io.trellara.sink.postgres.session;

/**
 * What a session remembers of the target (table descriptions, the shapes rows were prepared for):
 * kept by the session ({@link TargetSession#cache}) without it knowing what they hold, and
 * forgotten when DDL ran, the sink altered a table, or a transaction rolled back.
 */
public interface SessionCache {
  /** Forget everything (after DDL, or a rollback: a table created or altered is as it was). */
  void forgetAll();

  /** Forget what concerns {@code table} (the sink altered it). */
  void forget(Object table);
}
