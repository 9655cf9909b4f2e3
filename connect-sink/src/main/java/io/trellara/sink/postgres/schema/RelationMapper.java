package io.trellara.sink.postgres.schema;

import io.trellara.protocol.v1.RelationId;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.postgres.checkpoint.CheckpointStore;
import io.trellara.sink.postgres.checkpoint.ReadYourWrites;
import io.trellara.sink.postgres.names.Identifiers;
import io.trellara.sink.postgres.names.QualifiedName;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Maps a source relation to its target relation and enforces the allowlist. By default a relation
 * maps to the same schema and table; explicit mappings override that. When an allowlist is
 * configured the sink writes only to target relations on it ({@code schema.table}, {@code
 * schema.*}, or {@code *} for every relation); anything else is refused with an {@link
 * ApplyException} naming the relation. Whatever the allowlist says, the sink never writes its own
 * schemas ({@code trellara_sink}, and {@code trellara}, where services call the read-your-writes
 * view and function) or a system schema ({@code pg_catalog}, {@code information_schema}, {@code
 * pg_toast}, temporary schemas).
 */
public final class RelationMapper {
  /** Schemas the sink never writes, whatever the allowlist or a mapping says. */
  public static final Set<String> PROTECTED_SCHEMAS =
      Set.of(
          CheckpointStore.SCHEMA,
          ReadYourWrites.SCHEMA,
          "pg_catalog",
          "information_schema",
          "pg_toast");

  private final Map<QualifiedName, QualifiedName> mappings;
  private final Set<QualifiedName> allowed;
  private final Set<String> allowedSchemas;
  private final boolean allowlistEnabled;
  private final boolean allowAll;

  private RelationMapper(Builder b) {
    this.mappings = Map.copyOf(b.mappings);
    this.allowed = Set.copyOf(b.allowed);
    this.allowedSchemas = Set.copyOf(b.allowedSchemas);
    this.allowlistEnabled = b.allowlistEnabled;
    this.allowAll = b.allowAll;
  }

  /** True when {@code schema} is one the sink never writes (see {@link #PROTECTED_SCHEMAS}). */
  public static boolean isProtected(String schema) {
    return PROTECTED_SCHEMAS.contains(schema)
        || schema.startsWith("pg_temp")
        || schema.startsWith("pg_toast");
  }

  /** True when the sink may write {@code target}. */
  public boolean allows(QualifiedName target) {
    if (isProtected(target.schema())) {
      return false;
    }
    return !allowlistEnabled
        || allowAll
        || allowed.contains(target)
        || allowedSchemas.contains(target.schema());
  }

  /** Same schema and table, any relation allowed. */
  public static RelationMapper identity() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * The target of {@code source}, or an {@link ApplyException} when the sink must not write there.
   */
  public QualifiedName target(RelationId source, String eventKey) {
    QualifiedName from = new QualifiedName(source.getSchema(), source.getTable());
    try {
      Identifiers.check(from.schema());
      Identifiers.check(from.table());
    } catch (IllegalArgumentException e) {
      throw new ApplyException(
          ApplyException.Reason.RELATION_REFUSED,
          display(from),
          eventKey,
          "the source relation name cannot be used: " + e.getMessage());
    }
    QualifiedName to = mappings.getOrDefault(from, from);
    if (isProtected(to.schema())) {
      throw new ApplyException(
          ApplyException.Reason.RELATION_REFUSED,
          to.quoted(),
          eventKey,
          "target relation "
              + to.quoted()
              + " (source "
              + from.quoted()
              + ") is in a schema the sink"
              + " never writes (its own, or a system schema), whatever the allowlist says");
    }
    if (!allows(to)) {
      throw new ApplyException(
          ApplyException.Reason.RELATION_REFUSED,
          to.quoted(),
          eventKey,
          "target relation "
              + to.quoted()
              + " (source "
              + from.quoted()
              + ") is not on the sink's allowlist; add it to the allowlist or map the source"
              + " relation elsewhere");
    }
    return to;
  }

  /**
   * Whether DDL replay may touch {@code n}: allowed, and not mapped elsewhere (the statement text
   * cannot be rewritten to the mapped name).
   */
  public boolean replayAllowed(QualifiedName n) {
    QualifiedName mapped = mappings.get(n);
    return (mapped == null || mapped.equals(n)) && allows(n);
  }

  private static String display(QualifiedName n) {
    return '"' + n.schema().replace("\"", "\"\"") + "\".\"" + n.table().replace("\"", "\"\"") + '"';
  }

  public static final class Builder {
    private final Map<QualifiedName, QualifiedName> mappings = new HashMap<>();
    private final Set<QualifiedName> allowed = new HashSet<>();
    private final Set<String> allowedSchemas = new HashSet<>();
    private boolean allowlistEnabled;
    private boolean allowAll;

    /** {@code source_schema.source_table -> target_schema.target_table}. */
    public Builder map(QualifiedName source, QualifiedName target) {
      Identifiers.check(target.schema());
      Identifiers.check(target.table());
      if (isProtected(target.schema())) {
        throw new IllegalArgumentException(
            "cannot map "
                + source.quoted()
                + " to "
                + target.quoted()
                + ": the sink never writes schema "
                + target.schema());
      }
      mappings.put(source, target);
      return this;
    }

    public Builder map(String source, String target) {
      return map(QualifiedName.parse(source), QualifiedName.parse(target));
    }

    /**
     * Restricts writes to these target relations ({@code schema.table}, {@code schema.*} for a
     * whole schema, or {@code *} for every relation outside the protected schemas). Calling it,
     * even with an empty collection, enables the allowlist.
     */
    public Builder allow(Collection<String> targets) {
      allowlistEnabled = true;
      for (String t : targets) {
        if (t.strip().equals("*")) {
          allowAll = true;
          continue;
        }
        QualifiedName n = QualifiedName.parse(t);
        if (n.table().equals("*") && !t.strip().endsWith("\"*\"")) {
          allowedSchemas.add(n.schema());
        } else {
          allowed.add(n);
        }
      }
      return this;
    }

    public RelationMapper build() {
      return new RelationMapper(this);
    }
  }
}
