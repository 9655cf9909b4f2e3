package io.trellara.sink.postgres;

/** What structured schema evolution does with a column the source no longer has. */
public enum DropColumnsPolicy {
  /** Leave the target column (its values stay; new rows leave it to its default). */
  KEEP,
  /** Drop the target column. */
  DROP
}
