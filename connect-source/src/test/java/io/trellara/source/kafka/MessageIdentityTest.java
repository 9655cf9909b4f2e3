package io.trellara.source.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.sample.SampleTransactions;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import org.junit.jupiter.api.Test;

class MessageIdentityTest {
  @Test
  void anEnvelopesIdentityIsReadFromItsTopLevelFieldsWithOrWithoutItsKind() {
    TransactionEnvelope e = SampleTransactions.envelope(3, false);
    byte[] bytes = TrellaraCodec.encode(e).bytes();
    for (MessageKind kind : new MessageKind[] {MessageKind.ENVELOPE, null}) {
      MessageIdentity id = MessageIdentity.read(kind, bytes);
      assertThat(id.kind()).isEqualTo(MessageKind.ENVELOPE);
      assertThat(id.sourceId()).isEqualTo(e.getSourceId());
      assertThat(id.transactionId()).isEqualTo(e.getTransactionId());
      assertThat(id.commitLsn()).isEqualTo(e.getCommitLsn());
      assertThat(id.closes()).isTrue();
    }
  }

  @Test
  void chunksAndMarkersCarryTheCommitLsnAtTagSix() {
    byte[] chunk =
        PartitionChunk.newBuilder()
            .setSourceId("orders")
            .setTransactionId("snapshot")
            .setCommitLsn("0/16B3748")
            .setChecksum(7)
            .build()
            .toByteArray();
    MessageIdentity c = MessageIdentity.read(MessageKind.CHUNK, chunk);
    assertThat(c.isSnapshot()).isTrue();
    assertThat(c.closes()).isFalse();
    assertThat(c.commitLsn()).isEqualTo("0/16B3748");
    byte[] marker =
        TransactionCommitMarker.newBuilder()
            .setSourceId("orders")
            .setTransactionId("771")
            .setSourceCommitLsn("0/2000000")
            .setChecksum(9)
            .build()
            .toByteArray();
    MessageIdentity m = MessageIdentity.read(MessageKind.COMMIT_MARKER, marker);
    assertThat(m.closes()).isTrue();
    assertThat(m.commitLsn()).isEqualTo("0/2000000");
  }

  @Test
  void bytesThatAreNoTrellaraMessageHaveNoIdentity() {
    assertThat(MessageIdentity.read(null, new byte[] {(byte) 0xff, 1, 2})).isNull();
    assertThat(MessageIdentity.read(MessageKind.CHUNK, null)).isNull();
  }
}
