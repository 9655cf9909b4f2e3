package io.trellara.source.capture.ddl;

import io.trellara.protocol.Lsn;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.RelationId;
import io.trellara.source.capture.RelationCache;
import io.trellara.source.capture.RelationSchema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides which {@code trellara.ddl} messages this connector publishes. The event trigger is
 * database-wide and shared by every connector on the database, so it reports every statement; a DDL
 * event is published only when DDL capture is enabled, the statement's objects are not all
 * temporary, and at least one owning relation is captured: described by a pgoutput Relation message
 * (the publication sent its changes) or covered by the publication as known at start ({@link
 * CapturedTables}).
 *
 * <p>Captured relations only accumulate, so a message kept when it was buffered still has a
 * captured owner when its transaction is emitted.
 */
public final class DdlFilter {
  private static final Logger LOG = LoggerFactory.getLogger(DdlFilter.class);

  private final boolean enabled;
  private final DdlTargets probeTargets = new DdlTargets();
  private final DdlEvent.Builder probe = DdlEvent.newBuilder();
  private boolean warnedUndescribed;
  private final CapturedTables configured;
  private final RelationCache cache;

  public DdlFilter(boolean enabled, CapturedTables configured, RelationCache cache) {
    this.enabled = enabled;
    this.configured = configured;
    this.cache = cache;
  }

  public boolean enabled() {
    return enabled;
  }

  /**
   * Whether the DDL message of {@code content} (at {@code lsn}) is published; parses it (malformed
   * content fails here).
   */
  public boolean keeps(byte[] content, long lsn) {
    if (!enabled) {
      LOG.debug("DDL message at LSN {} dropped: DDL capture is disabled", Lsn.format(lsn));
      return false;
    }
    DdlMessageParser.parseInto(content, lsn, probe.clear(), probeTargets);
    if (!probeTargets.described && !warnedUndescribed) {
      warnedUndescribed = true;
      LOG.warn(
          "A DDL message names no relations: the database's DDL event trigger is older than this"
              + " connector, so its DDL cannot be attributed and is dropped. Re-run"
              + " trellara-ddl-capture.sql to upgrade it.");
    }
    if (capturedOwner(probeTargets) != null) {
      return true;
    }
    if (LOG.isDebugEnabled()) {
      LOG.debug(
          "DDL message at LSN {} dropped ({} of {}): {}",
          Lsn.format(lsn),
          probeTargets.temporary ? "temporary objects" : "no captured relation",
          probeTargets.relations,
          probe.getCommandTag());
    }
    return false;
  }

  /**
   * The first captured owning relation, or null when this connector does not publish the statement.
   */
  public OwningRelation capturedOwner(DdlTargets targets) {
    if (!enabled || targets.temporary) {
      return null;
    }
    for (OwningRelation r : targets.relations) {
      if (captures(r)) {
        return r;
      }
    }
    return null;
  }

  private boolean captures(OwningRelation r) {
    if (r.oid() != 0 ? cache.known(r.oid()) : cache.named(r.schema(), r.table()) != null) {
      return true;
    }
    return configured.contains(r);
  }

  /**
   * The owner as the wire names it; an OID the trigger no longer knew is taken from what capture
   * knows.
   */
  public RelationId relationId(OwningRelation owner) {
    long oid = owner.oid();
    if (oid == 0) {
      RelationSchema known = cache.named(owner.schema(), owner.table());
      oid = known != null ? known.oid() : configured.oidOf(owner.schema(), owner.table());
    }
    return new OwningRelation(owner.schema(), owner.table(), oid).toRelationId();
  }
}
