package io.trellara.sink.postgres.schema;

import io.trellara.protocol.LogText;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.postgres.ddl.ReplayableStatement;
import io.trellara.sink.postgres.names.Identifiers;
import io.trellara.sink.postgres.names.QualifiedName;
import io.trellara.sink.postgres.session.TargetSession;
import io.trellara.sink.postgres.settings.ApplyOptions;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * What the sink does with a DDL event, per {@link DdlPolicy}. By default ({@link
 * DdlPolicy#STRUCTURED}) no text from a record is ever run: a schema change reaches the target
 * through {@link SchemaEvolution}, and the DDL event is only looked at for what evolution would
 * misread, a rename of an allowlisted table or column, which stops apply naming it. Replay runs the
 * statement only after {@link ReplayableStatement} accepted it.
 */
public final class DdlApplier {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(DdlApplier.class);
  private final TargetSession session;
  private final RelationMapper mapper;
  private final ApplyOptions options;
  private final TypeGate types;
  public long replayed;
  public long skipped;

  public DdlApplier(TargetSession session, RelationMapper mapper, ApplyOptions options) {
    this.session = session;
    this.mapper = mapper;
    this.options = options;
    this.types = new TypeGate(session, options.allowedTypes());
  }

  /** Handles {@code d} (event key {@code key}); true when a statement ran on the target. */
  public boolean apply(DdlEvent d, String key) throws SQLException {
    switch (options.ddlPolicy()) {
      case STRUCTURED -> {
        refuseRename(d, key);
        LOG.debug(
            "DDL event {} ({} {}) not run: schema changes arrive as schema versions",
            LogText.escape(key),
            LogText.escape(d.getCommandTag()),
            LogText.escape(d.getObjectIdentity()));
        skipped++;
        return false;
      }
      case SKIP -> {
        skipped++;
        return false;
      }
      case FAIL ->
          throw new ApplyException(
              ApplyException.Reason.DDL_REFUSED,
              d.getObjectIdentity(),
              key,
              "DDL event "
                  + d.getCommandTag()
                  + " on "
                  + d.getObjectIdentity()
                  + " and the DDL policy is"
                  + " fail; apply it on the target yourself and set the policy to skip, or to structured");
      case REPLAY -> {
        replay(d, key);
        return true;
      }
      default -> throw new IllegalStateException(options.ddlPolicy().toString());
    }
  }

  /**
   * A rename would reach evolution as a column (or table) that disappears and another that appears;
   * it must never become a drop and an add, so it stops apply here, before any row of the new
   * shape.
   */
  private void refuseRename(DdlEvent d, String key) {
    if (!DdlStatements.isRename(d.getStatement()) && !"table column".equals(d.getObjectType())) {
      return;
    }
    QualifiedName relation = DdlStatements.relationOf(d);
    if (relation != null && !mapper.allows(relation)) {
      return; // not a table this sink writes
    }
    throw new ApplyException(
        ApplyException.Reason.SCHEMA_CHANGE_REFUSED,
        relation == null ? d.getObjectIdentity() : relation.quoted(),
        key,
        d.getCommandTag()
            + " renames "
            + (relation == null ? d.getObjectIdentity() : relation.quoted())
            + " or one of its columns ("
            + d.getObjectType()
            + " "
            + d.getObjectIdentity()
            + "): a rename"
            + " cannot be derived from the schema versions without being mistaken for a drop and an add."
            + " Rename it on the target yourself, then let the task pass this event once with"
            + " ddl.apply=skip");
  }

  /**
   * Runs an accepted statement in the open target transaction with {@code
   * standard_conforming_strings = on} and {@code search_path = pg_catalog, <the event's first
   * schema that exists here>}: the built-ins the gate lets through cannot be shadowed, unqualified
   * names resolve where the gate resolved them (an unqualified CREATE TABLE fails rather than
   * landing anywhere else), and the sink's pinned path is back afterwards.
   */
  private void replay(DdlEvent d, String key) throws SQLException {
    String schema = defaultSchema(d.getSearchPath());
    ReplayableStatement accepted = DdlStatements.checkReplay(d, schema, mapper, key);
    session.at(accepted.toString(), key);
    LOG.info(
        "Replaying DDL event {} ({}) on the target, as ddl.apply=replay trusts the topic's writers",
        LogText.escape(key),
        LogText.escape(accepted.toString()));
    setLocal("standard_conforming_strings", "on");
    java.util.Set<String> before = types.columns(accepted.objects());
    setLocal("search_path", "pg_catalog, " + Identifiers.quote(schema));
    session.execute(d.getStatement());
    setLocal("search_path", TargetSession.SEARCH_PATH);
    types.refuseNewColumns(accepted.objects(), before, key);
    session.invalidate();
    replayed++;
  }

  private String defaultSchema(String searchPath) throws SQLException {
    for (String schema : DdlStatements.searchPath(searchPath)) {
      String name = "$user".equals(schema) ? null : schema;
      PreparedStatement ps =
          session.prepare(
              "SELECT n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname = coalesce(?, current_user)");
      ps.setString(1, name);
      try (java.sql.ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          return rs.getString(1);
        }
      }
    }
    return "public";
  }

  private void setLocal(String setting, String value) throws SQLException {
    PreparedStatement ps = session.prepare("SELECT pg_catalog.set_config(?, ?, true)");
    ps.setString(1, setting);
    ps.setString(2, value);
    ps.execute();
  }
}
