package io.trellara.source.startup;

import io.trellara.protocol.Lsn;
import io.trellara.source.kafka.SourcePosition;
import io.trellara.source.pg.ServerIdentity;

/**
 * Where the task starts, given the position it resumes from ({@link StartDecision}: Connect's
 * offset or its topic's tail) and the server it is connected to. A position's LSN is only valid on
 * the WAL history it was written against: on another cluster (a restored backup, a new primary that
 * is not a standby of the old one) PostgreSQL would silently skip everything before it, or replay
 * what was already published.
 *
 * @param verdict what was decided
 * @param startLsn where to start: the position's end LSN, or 0 (the slot's own position)
 * @param message what to log (INFO, WARN) or the reason the task stops (REFUSE)
 */
public record ResumeDecision(Verdict verdict, long startLsn, String message) {

  /** The setting that accepts another WAL history (named in the messages). */
  public static final String ACCEPT_NEW_HISTORY = "offsets.accept.new.history";

  public enum Verdict {
    /** No position: the slot decides. */
    NO_OFFSET,
    /** A position of an older version, without server identity: trusted as before (INFO). */
    UNIDENTIFIED_OFFSET,
    /** Same system identifier and timeline. */
    SAME_SERVER,
    /**
     * Same system identifier, another timeline: a promoted standby continues the same history
     * (WARN).
     */
    NEW_TIMELINE,
    /** Another system identifier, accepted by the setting: start at the slot's position (WARN). */
    NEW_HISTORY_ACCEPTED,
    /** Another system identifier: the task stops. */
    REFUSE
  }

  public static ResumeDecision decide(
      StoredOffset offset, ServerIdentity server, boolean acceptNewHistory, String connector) {
    if (!(offset instanceof StoredOffset.At at)) {
      return new ResumeDecision(
          Verdict.NO_OFFSET,
          0,
          "No position to resume from: the stream starts at the slot's position on the server ("
              + server
              + ")");
    }
    SourcePosition p = at.position();
    long lsn = p.endLsn();
    if (p.systemId() == null) {
      return new ResumeDecision(
          Verdict.UNIDENTIFIED_OFFSET,
          lsn,
          "The offset (end LSN "
              + Lsn.format(lsn)
              + ") was written by an older version without the server's identity: trusting it on "
              + server
              + "; offsets from now on record it");
    }
    if (!p.systemId().equals(server.systemId())) {
      String what =
          "The offsets of connector "
              + connector
              + " (end LSN "
              + Lsn.format(lsn)
              + ") were written against the PostgreSQL server with system identifier "
              + p.systemId()
              + (p.timeline() == null ? "" : " (timeline " + p.timeline() + ")")
              + ", but this server has system identifier "
              + server.systemId()
              + " (timeline "
              + server.timeline()
              + "): a restored backup or another cluster, whose LSNs belong to another WAL history."
              + " Resuming at the offset's LSN would skip or duplicate transactions silently.";
      if (acceptNewHistory) {
        return new ResumeDecision(
            Verdict.NEW_HISTORY_ACCEPTED,
            0,
            what
                + " "
                + ACCEPT_NEW_HISTORY
                + "=true: starting at the replication slot's own position on this server instead;"
                + " transactions before it are not captured. Remove the setting once the task runs,"
                + " so that a later change of server is refused again.");
      }
      return new ResumeDecision(
          Verdict.REFUSE,
          lsn,
          what
              + " The task stops. To start at the replication slot's own position on this server,"
              + " set "
              + ACCEPT_NEW_HISTORY
              + "=true (then remove it once the task runs); or stop the connector, delete its"
              + " offsets (DELETE /connectors/"
              + connector
              + "/offsets) and point topic.strict at a new topic (the start also reads the newest"
              + " position this source left on its strict topic); or point the connector back at the"
              + " server the offsets belong to.");
    }
    if (p.timeline() != null && p.timeline() != server.timeline()) {
      return new ResumeDecision(
          Verdict.NEW_TIMELINE,
          lsn,
          "The offset (end LSN "
              + Lsn.format(lsn)
              + ") was written on timeline "
              + p.timeline()
              + " of system identifier "
              + server.systemId()
              + "; the server is now on timeline "
              + server.timeline()
              + " (a promoted standby or a point-in-time recovery of the same cluster). Resuming at"
              + " the offset's LSN: the same cluster's history continues. Transactions the old"
              + " timeline committed after the switch point and the new one never received are not"
              + " checked for.");
    }
    return new ResumeDecision(
        Verdict.SAME_SERVER,
        lsn,
        "Resuming at end LSN "
            + Lsn.format(lsn)
            + " on the server the offset was written against ("
            + server
            + ")");
  }
}
