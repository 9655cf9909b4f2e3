package io.trellara.source.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.BoundaryVocabulary;
import io.trellara.protocol.EventCounts;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.Snapshots;
import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.source.replication.Outbound;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.TransactionContext;
import org.junit.jupiter.api.Test;

class KafkaTransactionBoundariesTest {

  /** What the task asked Connect to commit, by the key of the record it committed at. */
  private static final class RecordingContext implements TransactionContext {
    final List<String> committedAt = new ArrayList<>();

    @Override
    public void commitTransaction() {
      committedAt.add("<poll>");
    }

    @Override
    public void commitTransaction(SourceRecord record) {
      committedAt.add((String) record.key());
    }

    @Override
    public void abortTransaction() {
      committedAt.add("<abort>");
    }

    @Override
    public void abortTransaction(SourceRecord record) {
      committedAt.add("<abort " + record.key() + ">");
    }
  }

  private static Outbound outbound(
      Outbound.Destination d, MessageKind kind, String xid, String mode, long endLsn, int seq) {
    return new Outbound(
        d,
        0,
        kind,
        new byte[0],
        new TransactionBoundaryKey("src", "db", "0/100", xid),
        mode,
        0L,
        new EventCounts(1, 0),
        seq,
        endLsn,
        0,
        false);
  }

  /** Returns the records to the boundaries as poll() does; the record key names the record. */
  private static List<String> run(KafkaTransactionBoundaries boundaries, List<Outbound> out) {
    List<String> names = new ArrayList<>();
    int i = 0;
    for (Outbound o : out) {
      String name = o.kind().wireName() + "-" + o.key().transactionId() + "-" + i++;
      names.add(name);
      boundaries.returned(o, new SourceRecord(Map.of(), Map.of(), "t", 0, null, name, null, null));
    }
    return names;
  }

  @Test
  void aChunkedTransactionIsOneKafkaTransactionCommittedAtItsMarker() {
    RecordingContext ctx = new RecordingContext();
    var b = new KafkaTransactionBoundaries(ctx);
    String chunked = BoundaryVocabulary.STRICT_CHUNKED;
    List<String> names =
        run(
            b,
            List.of(
                outbound(Outbound.Destination.STRICT, MessageKind.ENVELOPE, "7", "s", 0x100, 1),
                outbound(Outbound.Destination.STRICT, MessageKind.CHUNK, "8", chunked, 0, 2),
                outbound(Outbound.Destination.STRICT, MessageKind.CHUNK, "8", chunked, 0, 2),
                outbound(Outbound.Destination.STRICT, MessageKind.MANIFEST, "8", chunked, 0, 2),
                outbound(
                    Outbound.Destination.STRICT, MessageKind.COMMIT_MARKER, "8", chunked, 0x200, 2),
                outbound(
                    Outbound.Destination.PARTITIONED,
                    MessageKind.CHUNK,
                    "9",
                    BoundaryVocabulary.PARTITIONED,
                    0,
                    3)));
    assertThat(b.defined()).isTrue();
    // the envelope alone; the chunked one at its marker; the partitioned one still open
    assertThat(ctx.committedAt).containsExactly(names.get(0), names.get(4));
  }

  @Test
  void eachSnapshotChunkIsAKafkaTransactionOfItsOwnAndItsMarkerClosesIt() {
    RecordingContext ctx = new RecordingContext();
    var b = new KafkaTransactionBoundaries(ctx);
    String snap = Snapshots.TRANSACTION_ID;
    String mode = BoundaryVocabulary.STRICT_CHUNKED;
    List<String> names =
        run(
            b,
            List.of(
                outbound(Outbound.Destination.STRICT, MessageKind.CHUNK, snap, mode, 0, 1),
                outbound(Outbound.Destination.STRICT, MessageKind.CHUNK, snap, mode, 0, 1),
                outbound(Outbound.Destination.STRICT, MessageKind.MANIFEST, snap, mode, 0, 1),
                outbound(
                    Outbound.Destination.STRICT, MessageKind.COMMIT_MARKER, snap, mode, 0x300, 1)));
    assertThat(ctx.committedAt).containsExactlyElementsOf(names);
  }

  @Test
  void withoutATransactionContextNothingIsCommittedByTheTask() {
    var b = new KafkaTransactionBoundaries(null);
    run(
        b,
        List.of(
            outbound(
                Outbound.Destination.STRICT,
                MessageKind.ENVELOPE,
                "7",
                BoundaryVocabulary.STRICT,
                1,
                1)));
    assertThat(b.defined()).isFalse();
  }
}
