package io.trellara.source.connect;

import static io.trellara.source.connect.TrellaraSourceTask.OFFSET_END_LSN;
import static io.trellara.source.connect.TrellaraSourceTask.OFFSET_SYSTEM_ID;
import static io.trellara.source.connect.TrellaraSourceTask.OFFSET_TIMELINE;

import io.trellara.protocol.Lsn;
import io.trellara.source.engine.ServerIdentity;
import java.util.Map;

/**
 * Where the task starts, given its Kafka offset and the server it is connected to. An offset's LSN
 * is only valid on the WAL history it was written against: on another cluster (a restored backup, a
 * new primary that is not a standby of the old one) PostgreSQL would silently skip everything
 * before it, or replay what was already published.
 *
 * @param verdict what was decided
 * @param startLsn where to start: the offset's end LSN, or 0 (the slot's own position)
 * @param message what to log (INFO, WARN) or the reason the task stops (REFUSE)
 */
record ResumeDecision(Verdict verdict, long startLsn, String message) {

  enum Verdict {
    /** No offset: the slot decides. */
    NO_OFFSET,
    /** An offset of an older version, without server identity: trusted as before (INFO). */
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

  static ResumeDecision decide(
      Map<String, ?> offset, ServerIdentity server, boolean acceptNewHistory, String connector) {
    if (offset == null || !(offset.get(OFFSET_END_LSN) instanceof Number end)) {
      return new ResumeDecision(
          Verdict.NO_OFFSET,
          0,
          "No Kafka offset for this slot: starting at the slot's"
              + " position on the server ("
              + server
              + ")");
    }
    long lsn = end.longValue();
    Object offsetSystem = offset.get(OFFSET_SYSTEM_ID);
    if (offsetSystem == null || offsetSystem.toString().isBlank()) {
      return new ResumeDecision(
          Verdict.UNIDENTIFIED_OFFSET,
          lsn,
          "The Kafka offset (end LSN "
              + Lsn.format(lsn)
              + ") was written by an older version without the server's identity: trusting it on "
              + server
              + "; offsets from now on record it");
    }
    if (!offsetSystem.toString().equals(server.systemId())) {
      String what =
          "The Kafka offsets of connector "
              + connector
              + " (end LSN "
              + Lsn.format(lsn)
              + ") were"
              + " written against the PostgreSQL server with system identifier "
              + offsetSystem
              + timeline(offset)
              + ", but this server has system identifier "
              + server.systemId()
              + " (timeline "
              + server.timeline()
              + "): a restored backup or another cluster, whose LSNs"
              + " belong to another WAL history. Resuming at the offset's LSN would skip or duplicate"
              + " transactions silently.";
      if (acceptNewHistory) {
        return new ResumeDecision(
            Verdict.NEW_HISTORY_ACCEPTED,
            0,
            what
                + " "
                + TrellaraSourceConfig.OFFSETS_ACCEPT_NEW_HISTORY
                + "=true: starting at the replication"
                + " slot's own position on this server instead; transactions before it are not captured."
                + " Remove the setting once the task runs, so that a later change of server is refused"
                + " again.");
      }
      return new ResumeDecision(
          Verdict.REFUSE,
          lsn,
          what
              + " The task stops. To start at the replication"
              + " slot's own position on this server, set "
              + TrellaraSourceConfig.OFFSETS_ACCEPT_NEW_HISTORY
              + "=true (then remove it once the task runs); or stop the connector and delete its offsets"
              + " (DELETE /connectors/"
              + connector
              + "/offsets); or point the connector back at the server"
              + " the offsets belong to.");
    }
    Long offsetTimeline = offset.get(OFFSET_TIMELINE) instanceof Number n ? n.longValue() : null;
    if (offsetTimeline != null && offsetTimeline != server.timeline()) {
      return new ResumeDecision(
          Verdict.NEW_TIMELINE,
          lsn,
          "The Kafka offset (end LSN "
              + Lsn.format(lsn)
              + ") was written on timeline "
              + offsetTimeline
              + " of system identifier "
              + server.systemId()
              + "; the server is now on timeline "
              + server.timeline()
              + " (a promoted standby or a"
              + " point-in-time recovery of the same cluster). Resuming at the offset's LSN: the same"
              + " cluster's history continues. Transactions the old timeline committed after the switch"
              + " point and the new one never received are not checked for.");
    }
    return new ResumeDecision(
        Verdict.SAME_SERVER,
        lsn,
        "Resuming at the Kafka offset's end LSN "
            + Lsn.format(lsn)
            + " on the server the offset was written against ("
            + server
            + ")");
  }

  private static String timeline(Map<String, ?> offset) {
    return offset.get(OFFSET_TIMELINE) instanceof Number n
        ? " (timeline " + n.longValue() + ")"
        : "";
  }
}
