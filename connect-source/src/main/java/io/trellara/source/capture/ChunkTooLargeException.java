package io.trellara.source.capture;

import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.protocol.boundary.ChunkBoundException;

/**
 * A committed transaction cannot be published within the flow's record bound: one of its events
 * does not fit in a chunk of its own (an event is never split across chunks), or its manifest lists
 * more chunks than the bound holds. Nothing is dropped: the transaction gets no manifest, so no
 * sink applies any of it, and the slot stays before it. The advice names the setting that raises
 * the bound; with it raised, capture resumes at this transaction.
 */
public final class ChunkTooLargeException extends CaptureException {

  private static final long serialVersionUID = 1L;

  /** The rule of an event too large for a chunk of its own. */
  public static final String EVENT_TOO_LARGE = "event_too_large";

  /** The rule of a manifest larger than the bound. */
  public static final String MANIFEST_TOO_LARGE = "manifest_too_large";

  private final String setting;
  private final String field;
  private final long neededBytes;

  private ChunkTooLargeException(
      String rule, String message, String setting, String field, long neededBytes, Throwable c) {
    super(rule, message, c);
    this.setting = setting;
    this.field = field;
    this.neededBytes = neededBytes;
  }

  /**
   * @param what the event, as a person reads it ("a change of public.doc")
   * @param setting the setting that bounds the flow's records (dataset.chunk.max_bytes)
   */
  public static ChunkTooLargeException of(
      ChunkBoundException e, TransactionBoundaryKey key, String what, String setting) {
    boolean event = e.subject() == ChunkBoundException.Subject.EVENT;
    String message =
        (event ? what + " (" + e.field() + ")" : "the manifest (" + e.field() + ")")
            + " of transaction "
            + key.display()
            + " needs a record of "
            + e.neededBytes()
            + " bytes, but "
            + setting
            + "="
            + e.maxBytes()
            + (event
                ? ": an event is never split across chunks, so no chunk can carry it."
                : ": the manifest lists every chunk of the transaction.")
            + " Set "
            + setting
            + " to at least "
            + e.neededBytes()
            + (event ? "" : " (larger chunks make fewer of them)")
            + "; validate() then names the topics' max.message.bytes and the producer's"
            + " max.request.size the new bound needs. Nothing of this transaction is applied (it has"
            + " no commit marker) and the slot stays before it, so capture resumes here.";
    return new ChunkTooLargeException(
        event ? EVENT_TOO_LARGE : MANIFEST_TOO_LARGE,
        message,
        setting,
        e.field(),
        e.neededBytes(),
        e);
  }

  /** The setting to raise. */
  public String setting() {
    return setting;
  }

  /** {@code total_order N} of the event, or {@code partitions} of the manifest. */
  public String field() {
    return field;
  }

  /** The smallest value of {@link #setting()} that carries the record. */
  public long neededBytes() {
    return neededBytes;
  }
}
