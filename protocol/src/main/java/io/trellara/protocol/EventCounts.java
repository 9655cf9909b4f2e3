package io.trellara.protocol;

/**
 * The operator rendering of a transaction's size; source_total is a rendering, never a wire field.
 */
public record EventCounts(long dml, long ddl) {

  public long sourceTotal() {
    return dml + ddl;
  }

  /** {@code dml=N ddl=M source_total=N+M}, exactly as every operator surface prints it. */
  public String render() {
    return "dml=" + dml + " ddl=" + ddl + " source_total=" + sourceTotal();
  }

  @Override
  public String toString() {
    return render();
  }
}
