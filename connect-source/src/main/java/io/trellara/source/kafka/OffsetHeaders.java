package io.trellara.source.kafka;

import io.trellara.protocol.Lsn;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The source offset a closing record (an envelope, or a commit marker) sets, repeated in its Kafka
 * headers, so that a task whose Connect offsets were never flushed finds on its own topic where it
 * had got to ({@link TopicTailReader}). Additive and optional (docs/protocol.md): consumers ignore
 * them; other records never carry them. Every value is UTF-8 text:
 *
 * <ul>
 *   <li>{@value #SOURCE_ID}, {@value #SLOT}: whose offset (the source partition);
 *   <li>{@value #COMMIT_LSN}, {@value #END_LSN} ({@code X/X}), {@value #TRANSACTION_ID}: the
 *       transaction and the end of its commit record, where the stream resumes;
 *   <li>{@value #SYSTEM_ID}, {@value #TIMELINE} (decimal): the server the LSNs belong to.
 * </ul>
 */
public final class OffsetHeaders {
  public static final String PREFIX = "trellara.offset.";
  public static final String SOURCE_ID = PREFIX + "source_id";
  public static final String SLOT = PREFIX + "slot";
  public static final String COMMIT_LSN = PREFIX + "commit_lsn";
  public static final String END_LSN = PREFIX + "end_lsn";
  public static final String TRANSACTION_ID = PREFIX + "transaction_id";
  public static final String SYSTEM_ID = PREFIX + "system_id";
  public static final String TIMELINE = PREFIX + "timeline";

  private OffsetHeaders() {}

  /** A closing record's offset as its headers say it, with the source partition it belongs to. */
  public record Stamp(String sourceId, String slot, SourcePosition position) {
    public boolean of(String otherSourceId, String otherSlot) {
      return sourceId.equals(otherSourceId) && slot.equals(otherSlot);
    }
  }

  /** The headers of a closing record setting {@code position}, in their order. */
  public static void write(
      String sourceId, String slot, SourcePosition position, BiConsumer<String, String> header) {
    header.accept(SOURCE_ID, sourceId);
    header.accept(SLOT, slot);
    header.accept(COMMIT_LSN, position.commitLsn());
    header.accept(END_LSN, Lsn.format(position.endLsn()));
    header.accept(TRANSACTION_ID, position.transactionId());
    if (position.systemId() != null) {
      header.accept(SYSTEM_ID, position.systemId());
    }
    if (position.timeline() != null) {
      header.accept(TIMELINE, Long.toString(position.timeline()));
    }
  }

  /**
   * The offset a record's headers carry ({@code header}: the last value of a header, null when
   * absent); null when it carries none, or they do not parse (then it is read as a record without
   * them).
   */
  public static Stamp read(Function<String, String> header) {
    String sourceId = header.apply(SOURCE_ID);
    String slot = header.apply(SLOT);
    String commit = header.apply(COMMIT_LSN);
    String end = header.apply(END_LSN);
    String xid = header.apply(TRANSACTION_ID);
    if (sourceId == null || slot == null || commit == null || end == null || xid == null) {
      return null;
    }
    Lsn endLsn = Lsn.parseOrNull(end);
    if (endLsn == null || !Lsn.parses(commit)) {
      return null;
    }
    String system = header.apply(SYSTEM_ID);
    String timeline = header.apply(TIMELINE);
    Long tl = null;
    if (timeline != null) {
      try {
        tl = Long.parseLong(timeline.trim());
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return new Stamp(sourceId, slot, new SourcePosition(commit, endLsn.value(), xid, system, tl));
  }
}
