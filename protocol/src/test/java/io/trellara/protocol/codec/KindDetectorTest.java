package io.trellara.protocol.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.boundary.ChunkedBarrier;
import io.trellara.protocol.sample.SampleTransactions;
import org.junit.jupiter.api.Test;

class KindDetectorTest {
    @Test
    void tellsEveryKindFromItsLayout() {
        var tx = SampleTransactions.envelope(5, true);
        ChunkedBarrier.Barrier b = ChunkedBarrier.strictChunked(tx, 2);
        for (EncodedMessage m : b.inOrder()) {
            assertThat(KindDetector.detect(m.bytes())).contains(m.kind());
        }
        assertThat(KindDetector.detect(TrellaraCodec.encode(tx).bytes())).contains(io.trellara.protocol.MessageKind.ENVELOPE);
        assertThat(KindDetector.detect(new byte[] {(byte) 0xFF, 0x01})).isEmpty();
    }
}
