package io.trellara.protocol.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.boundary.ChunkedBarrier;
import io.trellara.protocol.sample.SampleTransactions;
import io.trellara.protocol.v1.TransactionManifest;
import org.junit.jupiter.api.Test;

class KindDetectorTest {
  @Test
  void tellsEveryKindFromItsLayout() {
    var tx = SampleTransactions.envelope(5, true);
    ChunkedBarrier.Barrier b = ChunkedBarrier.strictChunked(tx, 2);
    for (EncodedMessage m : b.inOrder()) {
      assertThat(KindDetector.detect(m.bytes())).contains(m.kind());
    }
    assertThat(KindDetector.detect(TrellaraCodec.encode(tx).bytes()))
        .contains(io.trellara.protocol.MessageKind.ENVELOPE);
    assertThat(KindDetector.detect(new byte[] {(byte) 0xFF, 0x01})).isEmpty();
  }

  /**
   * A manifest without entries has no tag 9, but its boundary_mode (tag 11, a varint) still names
   * it.
   */
  @Test
  void tellsAManifestWithoutEntriesFromACommitMarker() {
    ChunkedBarrier.Barrier b =
        ChunkedBarrier.strictChunked(SampleTransactions.envelope(5, true), 2);
    TransactionManifest noEntries =
        TrellaraCodec.decodeManifest(b.manifest().bytes()).toBuilder()
            .clearPartitions()
            .clearAffectedTables()
            .build();
    byte[] bytes = TrellaraCodec.encodeWithoutValidation(noEntries).bytes();
    assertThat(KindDetector.detect(bytes)).contains(MessageKind.MANIFEST);
    assertThat(KindDetector.detect(b.commitMarker().bytes())).contains(MessageKind.COMMIT_MARKER);
  }
}
