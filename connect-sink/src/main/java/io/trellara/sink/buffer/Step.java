package io.trellara.sink.buffer;

import com.google.protobuf.Message;
import io.trellara.protocol.EventKey;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.sink.port.ApplyException;
import java.util.ArrayList;
import java.util.List;

/**
 * One record of a batch (or, {@link #assembled()}, a whole strict-chunked barrier: its first
 * chunk's input, its reassembled envelope and its marker's offset).
 *
 * <p>Also what a batch is checked for before any of it is applied: strict messages on the strict
 * topic's one partition, lane chunks on the Kafka partition of their lane, and whole strict-chunked
 * barriers found.
 */
record Step(
    PartitionState ps,
    Input in,
    Message message,
    PartitionChunk chunk,
    RuntimeException poison,
    long lastOffset) {
  boolean assembled() {
    return lastOffset != in.offset();
  }

  /**
   * Replaces every strict-chunked barrier that arrived whole in this batch — its chunks, manifest
   * and marker consecutive on one partition — by its reassembled envelope (see {@link
   * WholeBarrier}): nothing of it is staged, and it applies grouped with the envelopes around it.
   */
  static List<Step> assembleWholeBarriers(List<Step> steps) {
    List<Step> out = new ArrayList<>(steps.size());
    int i = 0;
    while (i < steps.size()) {
      Step first = steps.get(i);
      int j = i;
      while (j < steps.size() && sameTransactionChunk(first, steps.get(j))) {
        j++;
      }
      if (j > i
          && j + 1 < steps.size()
          && first.ps().pendingManifest == null
          && first.chunk().getBoundaryMode()
              == ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER
          && steps.get(j).ps == first.ps()
          && steps.get(j + 1).ps == first.ps()
          && steps.get(j).message instanceof TransactionManifest m
          && steps.get(j + 1).message instanceof TransactionCommitMarker k
          && m.getTransactionId().equals(first.chunk().getTransactionId())) {
        List<PartitionChunk> chunks = new ArrayList<>(j - i);
        for (int c = i; c < j; c++) {
          chunks.add(steps.get(c).chunk);
        }
        TransactionEnvelope whole = WholeBarrier.assemble(m, k, chunks);
        if (whole != null) {
          out.add(
              new Step(first.ps(), first.in(), whole, null, null, steps.get(j + 1).in.offset()));
          i = j + 2;
          continue;
        }
        // whole in this batch but it does not verify (or is out of order): the staged way names the
        // rule
        first.ps().stageTransaction =
            new io.trellara.protocol.TransactionBoundaryKey(
                first.chunk().getSourceId(),
                first.chunk().getDatabaseId(),
                first.chunk().getCommitLsn(),
                first.chunk().getTransactionId());
      }
      int end = Math.max(j, i + 1);
      out.addAll(steps.subList(i, end));
      i = end;
    }
    return out;
  }

  private static boolean sameTransactionChunk(Step first, Step s) {
    return first.chunk() != null
        && s.chunk() != null
        && s.ps() == first.ps()
        && s.poison() == null
        && s.chunk().getTransactionId().equals(first.chunk().getTransactionId())
        && s.chunk().getCommitLsn().equals(first.chunk().getCommitLsn());
  }

  /**
   * Envelopes, strict chunks, manifests and commit markers belong to the strict topic, whose one
   * partition is what orders them: one on another partition means the topic has several, and commit
   * order cannot hold.
   */
  static void checkStrictPartition(Input in) {
    if (in.partition().partition() != 0) {
      throw new ApplyException(
          ApplyException.Reason.BARRIER_SEQUENCE,
          null,
          null,
          in.where()
              + ": a "
              + in.kind()
              + " arrived on partition "
              + in.partition().partition()
              + " of "
              + in.partition().topic()
              + "; a strict topic must have exactly one partition (commit order"
              + " holds only within one). Re-create the topic with one partition.");
    }
  }

  static void checkLane(Input in, PartitionChunk c) {
    if (Integer.toUnsignedLong(c.getPartitionId()) != in.partition().partition()) {
      throw new ApplyException(
          ApplyException.Reason.BARRIER_SEQUENCE,
          null,
          EventKey.transaction(c.getSourceId(), c.getCommitLsn(), c.getTransactionId()),
          in.where()
              + ": a partitioned chunk of lane "
              + Integer.toUnsignedString(c.getPartitionId())
              + " arrived on Kafka partition "
              + in.partition().partition()
              + "; each lane must be the"
              + " partition of the same number, or lane order (and the missing-chunk rule) cannot hold");
    }
  }

  /**
   * The staged form of this verified chunk: the input's bytes, or (decoded input) its bytes again,
   * which must hash the same as those the converter verified.
   */
  io.trellara.sink.port.StagedChunk staged() {
    byte[] bytes = in.bytes();
    if (bytes == null) {
      bytes = chunk.toByteArray();
      io.trellara.protocol.codec.TrellaraCodec.verifyChecksum(
          io.trellara.protocol.MessageKind.CHUNK, bytes);
    }
    return io.trellara.sink.port.StagedChunk.of(chunk, bytes);
  }
}
