package io.trellara.source.signal;

import java.util.List;
import java.util.Locale;

/**
 * One signal as the source reads it from the signal table: who sent it (its {@code id}), the
 * action, and the tables it names, each with an optional row filter (a {@code snapshot} only).
 */
public record Signal(String id, Action action, List<TableRequest> tables) {

  public Signal {
    tables = List.copyOf(tables);
  }

  /** The actions a signal can name, spelled as in the signal table's {@code type} column. */
  public enum Action {
    SNAPSHOT("snapshot"),
    STOP_SNAPSHOT("stop-snapshot"),
    PAUSE_SNAPSHOT("pause-snapshot"),
    RESUME_SNAPSHOT("resume-snapshot");

    private final String wireName;

    Action(String wireName) {
      this.wireName = wireName;
    }

    public String wireName() {
      return wireName;
    }

    /** The action of that name (case and surrounding blanks ignored), or null. */
    static Action named(String s) {
      String n = s.strip().toLowerCase(Locale.ROOT);
      for (Action a : values()) {
        if (a.wireName.equals(n)) {
          return a;
        }
      }
      return null;
    }
  }

  /**
   * A table named by a signal: its schema and name as the catalogue spells them (unquoted names
   * folded to lower case, as PostgreSQL folds them), and a row filter (a SQL boolean expression
   * over the table's columns) or null for the whole table.
   */
  public record TableRequest(String schema, String table, String filter) {
    public String display() {
      return schema + "." + table;
    }
  }
}
