package io.trellara.sink.buffer;

import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.sink.port.BarrierLook;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.port.StagedChunk;
import io.trellara.sink.port.TopicPartitionKey;
import java.util.List;
import java.util.Map;

/**
 * What the buffer decided the target must do next ({@link SinkBuffer#next}); a driver runs it
 * against the target port. Two kinds:
 *
 * <ul>
 *   <li><b>Done by the time it is returned</b>: the buffer has moved on as if it succeeded ({@link
 *       Stage}, {@link ApplyEnvelopes}, {@link ApplyBarrier}, {@link StreamChunk}, {@link
 *       StreamManifest}, {@link CommitStream}, {@link RollbackStream}). A failure of the first
 *       three stops apply (the task reads again from the target's progress); a stream's failure is
 *       told back with {@link SinkBuffer#streamFailed} before the next decision.
 *   <li><b>Questions</b>: the buffer waits for the answer, handed back with {@link
 *       SinkBuffer#answer} ({@link CheckBarriers}: verdicts; {@link CheckApplied}: a boolean;
 *       {@link MeasureStaging}: the staged bytes per lane).
 * </ul>
 *
 * {@link Fail} stops apply with its error: everything before it is applied.
 */
public sealed interface Decision {

  /**
   * Stage verified chunks with their lanes' watermarks and {@code positions}, in one commit; {@code
   * origins} says where each chunk was read (the buffer's, for the transactions the target sets
   * aside).
   */
  record Stage(
      List<StagedChunk> chunks, Map<TopicPartitionKey, Long> positions, List<Origin> origins)
      implements Decision {}

  /** The partition and offset a staged chunk was read from. */
  record Origin(TopicPartitionKey partition, long offset) {}

  /** Apply consecutive whole transactions in order (grouped); then the listener hears of them. */
  record ApplyEnvelopes(List<SourceTransaction> batch) implements Decision {}

  /**
   * Where do these barriers stand (the first is the head of its queue)? Answer: a {@code
   * List<BarrierLook.Seen>} in the same order, with the staged chunks of those complete.
   */
  record CheckBarriers(List<BarrierLook> looks) implements Decision {}

  /** Apply the ready barrier of {@code manifest}: {@code held} from memory, the rest staged. */
  record ApplyBarrier(
      TransactionManifest manifest,
      Map<TopicPartitionKey, Long> positions,
      List<PartitionChunk> held)
      implements Decision {}

  /** Is the transaction of a commit marker without its manifest applied already? */
  record CheckApplied(FlowKey key, String where) implements Decision {}

  /** Open the target transaction of the strict-chunked transaction whose first chunk this is. */
  record OpenStream(TopicPartitionKey partition, PartitionChunk first) implements Decision {}

  /** Write the next chunk of the partition's open stream. */
  record StreamChunk(TopicPartitionKey partition, PartitionChunk chunk) implements Decision {}

  /** The open stream's manifest has arrived (checked at the marker). */
  record StreamManifest(TopicPartitionKey partition, TransactionManifest manifest)
      implements Decision {}

  /** Verify the marker against the stream's manifest and chunks, record, commit. */
  record CommitStream(
      TopicPartitionKey partition,
      TransactionCommitMarker marker,
      TransactionManifest manifest,
      Map<TopicPartitionKey, Long> positions)
      implements Decision {}

  /** Roll back the partition's open stream, if the driver holds one (nothing of it is visible). */
  record RollbackStream(TopicPartitionKey partition) implements Decision {}

  /** How many bytes are staged behind each flow's oldest staged transaction, per lane? */
  record MeasureStaging() implements Decision {}

  /** Stop apply with {@code error}. */
  record Fail(RuntimeException error) implements Decision {}

  /** True when the buffer waits for {@link SinkBuffer#answer} before its next decision. */
  default boolean isQuestion() {
    return this instanceof CheckBarriers
        || this instanceof CheckApplied
        || this instanceof MeasureStaging;
  }
}
