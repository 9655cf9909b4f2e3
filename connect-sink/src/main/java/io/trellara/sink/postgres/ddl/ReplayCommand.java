package io.trellara.sink.postgres.ddl;

/** The commands a captured DDL statement may be replayed as. */
public enum ReplayCommand {
  ALTER_TABLE("ALTER TABLE"),
  CREATE_TABLE("CREATE TABLE"),
  DROP_TABLE("DROP TABLE"),
  CREATE_INDEX("CREATE INDEX"),
  DROP_INDEX("DROP INDEX"),
  COMMENT_ON_TABLE("COMMENT ON TABLE"),
  COMMENT_ON_COLUMN("COMMENT ON COLUMN");

  private final String tag;

  ReplayCommand(String tag) {
    this.tag = tag;
  }

  /** As PostgreSQL's command tag spells it. */
  public String tag() {
    return tag;
  }
}
