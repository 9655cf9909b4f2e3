package io.trellara.sink.postgres.apply;

import io.trellara.protocol.SchemaVersions;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TruncateSpec;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.postgres.names.QualifiedName;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.schema.TargetTable;
import io.trellara.sink.postgres.schema.TargetTables;
import io.trellara.sink.postgres.session.TargetSession;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a truncate at its place in the transaction, once every run before it is written: one
 * {@code TRUNCATE TABLE} of the target of every relation it names (a missing target is created
 * first), with RESTART IDENTITY and CASCADE as the source ran it. Each table is named {@code ONLY}
 * (unless partitioned, see {@link TargetTable#rowScope}), so an inheritance child is not emptied. A
 * CASCADE that would also empty a table the sink may not write is refused, so nothing of the
 * transaction is applied.
 */
final class TruncateWriter {
  private final TargetSession session;
  private final RelationMapper mapper;
  private final TargetTables tables;

  long truncates;

  TruncateWriter(TargetSession session, RelationMapper mapper, TargetTables tables) {
    this.session = session;
    this.mapper = mapper;
    this.tables = tables;
  }

  /**
   * Truncates the targets of {@code c} ({@code schemas}: the schema versions of the envelope or
   * chunk that carries it).
   */
  void write(ChangeRecord c, List<SchemaVersion> schemas) throws SQLException {
    TruncateSpec spec = c.getTruncate();
    List<RelationId> relations =
        spec.getRelationsCount() > 0 ? spec.getRelationsList() : List.of(c.getRelation());
    List<QualifiedName> targets = new ArrayList<>(relations.size());
    StringBuilder sql = new StringBuilder("TRUNCATE TABLE ");
    for (RelationId r : relations) {
      QualifiedName t = mapper.target(r, c.getIdempotencyKey());
      TargetTable table = tables.ensure(t, anyVersionOf(r, schemas), c.getIdempotencyKey());
      sql.append(targets.isEmpty() ? "" : ", ").append(table.rowScope());
      targets.add(t);
    }
    session.at(sql.substring("TRUNCATE TABLE ".length()), c.getIdempotencyKey());
    if (spec.getRestartIdentity()) {
      sql.append(" RESTART IDENTITY");
    }
    if (spec.getCascade()) {
      for (QualifiedName dependent : tables.referencing(targets)) {
        if (!mapper.allows(dependent)) {
          throw new ApplyException(
              ApplyException.Reason.RELATION_REFUSED,
              dependent.quoted(),
              c.getIdempotencyKey(),
              "TRUNCATE ... CASCADE of "
                  + targets
                  + " would also empty "
                  + dependent.quoted()
                  + ", which is not on the sink's allowlist; nothing of the"
                  + " transaction is applied");
        }
      }
      sql.append(" CASCADE");
    }
    session.execute(sql.toString());
    truncates++;
  }

  /**
   * Any schema version of {@code relation} (a truncate needs one only to create a missing table).
   */
  private static SchemaVersion anyVersionOf(RelationId relation, List<SchemaVersion> schemas) {
    for (SchemaVersion v : schemas) {
      if (SchemaVersions.describes(v, relation)) {
        return v;
      }
    }
    return null;
  }
}
