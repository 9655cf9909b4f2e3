package io.trellara.source.startup;

import io.trellara.protocol.Lsn;
import io.trellara.source.kafka.SourcePosition;
import io.trellara.source.kafka.TopicTail;
import io.trellara.source.pg.ServerIdentity;
import io.trellara.source.snapshot.SnapshotMode;

/**
 * Where a starting task resumes and whether it snapshots first: pure, from what Connect holds
 * ({@link SourceOffsets.Lookup}), what the source's own topics hold ({@link TopicTail}), the server
 * and the slot. A transaction whose records are on the topic is never read or published again
 * because Connect had not flushed its offsets: the task resumes from the newer of Connect's offset
 * and the topic's newest closing record of this source.
 *
 * <ul>
 *   <li>Connect has no offset, the topic a closing record: the topic's (Connect had not flushed).
 *   <li>Connect says a snapshot was running: finished when the topic's newest closing record of
 *       this source is at or after its consistent point (the snapshot's own commit marker, or a
 *       transaction streamed after it); with a running offset of an earlier version, which does not
 *       name its consistent point, when the whole tail was read and no snapshot chunk follows that
 *       record. Otherwise the snapshot did not finish.
 *   <li>Both hold positions of the same server: the later end LSN (Connect's can be later only when
 *       the topic lost records: retention, or it was recreated). Positions of two servers: the one
 *       of the server the task is connected to, else Connect's (then {@link ResumeDecision}
 *       decides).
 *   <li>Snapshot chunks on the topic after everything the chosen position covers, without a commit
 *       marker: that snapshot did not finish (its slot is the one on the server now).
 * </ul>
 *
 * @param position what the task resumes from; the records it publishes before its first closing
 *     record carry it ({@link StoredOffset#toMap})
 * @param source where the position came from
 * @param positionMessage which position, and why (logged first)
 * @param positionWarns the position message is a WARN (a tail that could not be read, or is of an
 *     earlier version, while Connect has no position either)
 * @param resume the server check of the position
 * @param snapshot whether to snapshot
 */
public record StartDecision(
    StoredOffset position,
    Source source,
    String positionMessage,
    boolean positionWarns,
    ResumeDecision resume,
    SnapshotDecision snapshot) {

  public enum Source {
    /** Kafka Connect's stored offset. */
    CONNECT,
    /** The newest closing record of this source on its strict topic. */
    TOPIC,
    /** Neither: the slot's position. */
    NONE
  }

  /** Where the stream starts: 0 for the slot's position (always so when a snapshot is read). */
  public long startLsn() {
    return snapshot.plan().read() ? 0 : resume.startLsn();
  }

  /**
   * @param connect Connect's offsets of the partition
   * @param tail the strict topic's tail (and the lanes' in partitioned mode)
   * @param slotStatus the slot's wal_status, null when it does not exist
   * @param connector the connector's name (messages)
   * @param slot the slot's name (messages)
   */
  public static StartDecision decide(
      SourceOffsets.Lookup connect,
      TopicTail tail,
      String slotStatus,
      SnapshotMode mode,
      ServerIdentity server,
      boolean acceptNewHistory,
      String connector,
      String slot) {
    Choice choice = choose(connect, tail, server);
    ResumeDecision resume =
        ResumeDecision.decide(choice.position, server, acceptNewHistory, connector);
    // a position of another WAL history still says a snapshot was taken, as it always did
    SnapshotDecision snapshot =
        SnapshotDecision.decide(mode, choice.position, choice.unfinished, slotStatus, slot);
    return new StartDecision(
        choice.position, choice.source, choice.message, choice.warns, resume, snapshot);
  }

  private record Choice(
      StoredOffset position, Source source, String message, boolean warns, String unfinished) {}

  static Choice choose(SourceOffsets.Lookup lookup, TopicTail tail, ServerIdentity server) {
    StoredOffset connect = lookup.offset();
    String connectText = "Connect's offset: " + lookup.describe();
    String tailText = "the strict topic: " + tail.describe();
    SourcePosition t = tail.closing();
    StoredOffset position;
    Source source;
    String why;
    if (t == null) {
      position = connect;
      source = connect instanceof StoredOffset.None ? Source.NONE : Source.CONNECT;
      why =
          source == Source.NONE
              ? "no position: neither Connect nor the strict topic hold one of this source"
              : "Connect's offset (the strict topic gives no position)";
    } else if (connect instanceof StoredOffset.None) {
      position = new StoredOffset.At(t);
      source = Source.TOPIC;
      why =
          "the topic's: Connect holds no offset for this source, so it had not flushed its offsets"
              + " since that record was published; resuming after it, nothing on the topic is read or"
              + " published again";
    } else if (connect instanceof StoredOffset.Running r) {
      boolean finished =
          r.consistentPoint() != 0
              ? t.commitLsnValue() >= r.consistentPoint()
              : tail.complete() && tail.openSnapshotLsn() == 0;
      position = finished ? new StoredOffset.At(t) : connect;
      source = finished ? Source.TOPIC : Source.CONNECT;
      why =
          finished
              ? "the topic's: Connect's offset says a snapshot was running, but the topic's newest"
                  + " closing record of this source comes after it, so the snapshot finished and"
                  + " Connect had not flushed its offsets since"
              : "Connect's: it says a snapshot was running, and the topic holds no commit marker of"
                  + " it";
    } else {
      SourcePosition c = ((StoredOffset.At) connect).position();
      boolean topicNewer;
      String how;
      if (c.systemId() != null && t.systemId() != null && !c.systemId().equals(t.systemId())) {
        topicNewer = t.onSystem(server.systemId()) && !c.onSystem(server.systemId());
        how =
            topicNewer
                ? "the topic's is of this server, Connect's of another"
                : "they are of different servers; Connect's is checked against this one";
      } else if (t.endLsn() > c.endLsn()) {
        topicNewer = true;
        how = "the topic's is later: Connect had not flushed its offsets since";
      } else if (t.endLsn() == c.endLsn()) {
        topicNewer = false;
        how = "they agree";
      } else {
        topicNewer = false;
        how =
            "Connect's is later than anything of this source on the topic (the topic lost records:"
                + " retention, or it was deleted and created again)";
      }
      position = topicNewer ? new StoredOffset.At(t) : connect;
      source = topicNewer ? Source.TOPIC : Source.CONNECT;
      why = (topicNewer ? "the topic's" : "Connect's") + ", the newer of two positions: " + how;
    }
    String unfinished = null;
    if (position instanceof StoredOffset.Running) {
      unfinished =
          "Connect's offset says it was running and no commit marker of it is on the topic";
    } else if (tail.openSnapshotLsn() != 0
        && tail.openSnapshotLsn() > SourceOffsets.lsn(position)) {
      unfinished =
          "the topic holds chunks of the snapshot at consistent point "
              + Lsn.format(tail.openSnapshotLsn())
              + " without its commit marker";
    }
    boolean warns =
        source != Source.TOPIC
            && position instanceof StoredOffset.None
            && (tail.status() == TopicTail.Status.UNREADABLE
                || tail.status() == TopicTail.Status.INCOMPLETE
                || tail.status() == TopicTail.Status.WITHOUT_OFFSET);
    String message =
        "Start position: "
            + why
            + (position instanceof StoredOffset.None ? "" : " (" + position.describe() + ")")
            + ". "
            + connectText
            + "; "
            + tailText
            + ".";
    return new Choice(position, source, message, warns, unfinished);
  }
}
