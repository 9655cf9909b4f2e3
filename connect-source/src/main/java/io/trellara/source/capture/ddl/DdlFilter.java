package io.trellara.source.capture.ddl;

import io.trellara.protocol.LogText;
import io.trellara.protocol.Lsn;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.RelationId;
import io.trellara.source.capture.CaptureException;
import io.trellara.source.capture.RelationCache;
import io.trellara.source.capture.RelationSchema;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides which {@code trellara.ddl} messages this connector publishes. The event trigger is
 * database-wide and shared by every connector on the database, so it reports every statement; a DDL
 * event is published only when DDL capture is enabled, the statement's objects are not all
 * temporary, and at least one owning relation is captured: described by a pgoutput Relation message
 * (the publication sent its changes) or covered by the publication as known at start ({@link
 * CapturedTables}). Before that, a message must be well formed and come from one of the roles of
 * {@link CapturedTables#ddlRoles()}: anything else is refused, never fatal (see {@link #verdict}).
 *
 * <p>Captured relations only accumulate, so a message kept when it was buffered still has a
 * captured owner when its transaction is emitted.
 */
public final class DdlFilter {
  private static final Logger LOG = LoggerFactory.getLogger(DdlFilter.class);

  /** The rule a refused message broke: not the flat JSON object of the trigger. */
  public static final String MALFORMED = "DDL_MESSAGE_MALFORMED";

  /** The rule a refused message broke: its role is not one of ddl.message.roles. */
  public static final String UNAUTHORISED = "DDL_MESSAGE_UNAUTHORISED";

  private final boolean enabled;
  private final DdlTargets probeTargets = new DdlTargets();
  private final DdlEvent.Builder probe = DdlEvent.newBuilder();
  private boolean warnedUndescribed;
  private long refused;
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

  /** What becomes of one DDL message. */
  public enum Verdict {
    /** Published as a DDL event. */
    PUBLISH,
    /** Not this connector's: DDL capture off, temporary objects, or no captured relation. */
    DROP,
    /** Malformed, or from a role that is not one of ddl.message.roles: logged and skipped. */
    REFUSE
  }

  /**
   * What becomes of the DDL message of {@code content} (at {@code lsn}, in transaction {@code
   * xid}). A message that is not the trigger's JSON, or whose role is not one of {@code
   * ddl.message.roles}, may have been written by a direct pg_logical_emit_message call of anyone
   * allowed to make it: it is refused (logged at WARN, escaped, counted), never fatal, and nothing
   * of it is published; the rest of its transaction is.
   */
  public Verdict verdict(byte[] content, long lsn, long xid) {
    if (!enabled) {
      LOG.debug("DDL message at LSN {} dropped: DDL capture is disabled", Lsn.format(lsn));
      return Verdict.DROP;
    }
    try {
      DdlMessageParser.parseInto(content, lsn, probe.clear(), probeTargets);
    } catch (CaptureException malformed) {
      return refuse(
          MALFORMED,
          "content",
          lsn,
          xid,
          malformed.getMessage() + "; content " + LogText.quote(content));
    }
    if (!configured.authorises(probeTargets.role)) {
      return refuse(
          UNAUTHORISED,
          "role",
          lsn,
          xid,
          (probeTargets.role == null
                  ? "it names no role (a trigger older than version 3, or not the trigger)"
                  : "role "
                      + LogText.quote(probeTargets.role)
                      + " (session user "
                      + LogText.quote(probeTargets.sessionUser)
                      + ") is not one of ddl.message.roles "
                      + LogText.quote(String.valueOf(configured.ddlRoles())))
              + "; "
              + LogText.quote(probe.getCommandTag())
              + " of "
              + LogText.quote(String.valueOf(probeTargets.relations)));
    }
    if (!probeTargets.described && !warnedUndescribed) {
      warnedUndescribed = true;
      LOG.warn(
          "A DDL message names no relations: the database's DDL event trigger is older than this"
              + " connector, so its DDL cannot be attributed and is dropped. Re-run"
              + " trellara-ddl-capture.sql to upgrade it.");
    }
    if (capturedOwner(probeTargets) != null) {
      return Verdict.PUBLISH;
    }
    if (LOG.isDebugEnabled()) {
      LOG.debug(
          "DDL message at LSN {} dropped ({} of {}): {}",
          Lsn.format(lsn),
          probeTargets.temporary ? "temporary objects" : "no captured relation",
          LogText.quote(String.valueOf(probeTargets.relations)),
          LogText.quote(probe.getCommandTag()));
    }
    return Verdict.DROP;
  }

  /** DDL messages refused since this filter was created (malformed or unauthorised). */
  public long refused() {
    return refused;
  }

  private Verdict refuse(String reason, String field, long lsn, long xid, String detail) {
    refused++;
    LOG.warn(
        "DDL message refused ({}, field {}) at LSN {} in xid {}: {}. It is skipped: no DDL event"
            + " is published for it, the rest of its transaction is.",
        reason,
        field,
        Lsn.format(lsn),
        Long.toUnsignedString(xid),
        detail);
    return Verdict.REFUSE;
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

  /**
   * The tables of the message {@link #verdict} last judged that this connector captures, as the
   * statement left them (see {@link RelationShape}; none from a trigger older than version 4).
   */
  public List<RelationShape> capturedShapes() {
    List<RelationShape> shapes = probeTargets.shapes;
    if (shapes.isEmpty()) {
      return List.of();
    }
    List<RelationShape> captured = new ArrayList<>(shapes.size());
    for (RelationShape shape : shapes) {
      if (shape.oid() != 0
          && captures(new OwningRelation(shape.schema(), shape.table(), shape.oid()))) {
        captured.add(shape);
      }
    }
    return captured;
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
