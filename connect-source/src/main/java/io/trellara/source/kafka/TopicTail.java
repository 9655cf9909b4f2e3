package io.trellara.source.kafka;

import io.trellara.protocol.Lsn;

/**
 * What the source's own topics already hold of it, read from their end backwards (see {@link
 * io.trellara.source.kafka.TopicTailReader}): the newest closing record of this source (an envelope
 * or a commit marker, with the offset it set in its headers), and whether a snapshot newer than it
 * has records on the topics without its commit marker.
 *
 * @param status what the scan found
 * @param closing the position the newest closing record of this source set; null when none was
 *     found
 * @param closingAt where that record is ({@code topic-0@offset}), for the log
 * @param openSnapshotLsn the consistent point of a snapshot whose chunks or manifest are on the
 *     topics after the newest closing record, without a commit marker; 0 when none was seen
 * @param complete every partition's scan reached a conclusion (a closing record of this source, or
 *     the beginning of the partition); false when the record or time budget ended it first
 * @param recordsScanned records read
 * @param note what was read and found, in words
 */
public record TopicTail(
    Status status,
    SourcePosition closing,
    String closingAt,
    long openSnapshotLsn,
    boolean complete,
    long recordsScanned,
    String note) {

  public enum Status {
    /** A closing record of this source with its offset headers. */
    FOUND,
    /** The strict topic holds no record at all. */
    EMPTY,
    /** The whole strict partition was read: no closing record of this source. */
    NOT_FOUND,
    /**
     * The newest closing record of this source carries no offset headers (written by an earlier
     * version): the tail cannot say where it ended.
     */
    WITHOUT_OFFSET,
    /** The budget ended the scan before a closing record of this source was found. */
    INCOMPLETE,
    /** The topic could not be read (the reason is in the note). */
    UNREADABLE,
    /**
     * Not read: the source has no Kafka client of its own (no {@code kafka.bootstrap.servers}), so
     * Connect's offsets alone give the position.
     */
    NOT_READ
  }

  /** A tail that was not read (for the log: why). */
  public static TopicTail unreadable(String why) {
    return new TopicTail(Status.UNREADABLE, null, "", 0, false, 0, why);
  }

  /** A tail the source does not read (for the log: why). */
  public static TopicTail notRead(String why) {
    return new TopicTail(Status.NOT_READ, null, "", 0, false, 0, why);
  }

  /** For log lines. */
  public String describe() {
    String base =
        switch (status) {
          case FOUND ->
              "its newest closing record of this source ("
                  + closingAt
                  + ") set "
                  + closing.describe();
          case EMPTY -> "it holds no record";
          case NOT_FOUND -> "it holds no closing record of this source";
          case WITHOUT_OFFSET ->
              "its newest closing record of this source ("
                  + closingAt
                  + ") was written by an earlier version without offset headers, so it does not say"
                  + " where it ended";
          case INCOMPLETE -> "no closing record of this source within the scan's budget";
          case UNREADABLE -> "it could not be read";
          case NOT_READ -> "not read";
        };
    return base
        + (openSnapshotLsn == 0
            ? ""
            : "; chunks of a snapshot at consistent point "
                + Lsn.format(openSnapshotLsn)
                + " follow it without a commit marker (a snapshot that did not finish)")
        + (note.isEmpty() ? "" : " [" + note + "]");
  }
}
