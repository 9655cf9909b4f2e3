package io.trellara.source.capture;

/**
 * A committed transaction does not fit in one strict envelope of the configured maximum encoded
 * size. Strict order without chunking cannot publish it; the advice names the setting that can.
 */
public final class EnvelopeTooLargeException extends CaptureException {

  private static final long serialVersionUID = 1L;

  private final String transactionId;
  private final long estimatedBytes;
  private final long maxBytes;

  public EnvelopeTooLargeException(
      String transactionId,
      String commitLsn,
      long eventsSoFar,
      long estimatedBytes,
      long maxBytes) {
    super(
        "envelope_too_large",
        "transaction "
            + transactionId
            + " (commit LSN "
            + commitLsn
            + ") exceeds the "
            + maxBytes
            + "-byte envelope limit after "
            + eventsSoFar
            + " events (about "
            + estimatedBytes
            + " bytes so far). Enable dataset.strict_chunking.max_changes_per_chunk to publish large transactions"
            + " as chunks with a manifest and a commit marker, or raise the envelope size limit together with the"
            + " topic's max.message.bytes.");
    this.transactionId = transactionId;
    this.estimatedBytes = estimatedBytes;
    this.maxBytes = maxBytes;
  }

  public String transactionId() {
    return transactionId;
  }

  public long estimatedBytes() {
    return estimatedBytes;
  }

  public long maxBytes() {
    return maxBytes;
  }
}
