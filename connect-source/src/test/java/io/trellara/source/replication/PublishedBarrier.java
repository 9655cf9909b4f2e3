package io.trellara.source.replication;

import io.trellara.protocol.codec.EncodedMessage;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import java.util.ArrayList;
import java.util.List;

/**
 * A transaction's barrier decoded from the records a pipeline published, and checked the way a sink
 * must.
 */
public record PublishedBarrier(TransactionManifest manifest, List<PartitionChunk> chunks) {

  public static PublishedBarrier verified(List<Outbound> records) {
    List<PartitionChunk> chunks = new ArrayList<>();
    TransactionManifest manifest = null;
    TransactionCommitMarker marker = null;
    for (Outbound o : records) {
      byte[] bytes = ((EncodedMessage) o.value()).bytes();
      switch (o.kind()) {
        case CHUNK -> chunks.add(TrellaraCodec.decodeChunk(bytes));
        case MANIFEST -> manifest = TrellaraCodec.decodeManifest(bytes);
        case COMMIT_MARKER -> marker = TrellaraCodec.decodeCommitMarker(bytes);
        default -> throw new AssertionError(o.kind());
      }
    }
    BarrierVerifier.verify(manifest, marker, chunks);
    return new PublishedBarrier(manifest, chunks);
  }
}
