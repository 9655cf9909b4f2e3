package io.trellara.source.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.MessageKind;
import java.util.List;
import org.junit.jupiter.api.Test;

class TailScanTest {
  static final String SOURCE = "orders";
  static final String SLOT = "orders_slot";

  static TailScan.Entry closing(String source, String slot, String commit, long end, String xid) {
    return new TailScan.Entry(
        "t-0@" + end,
        new OffsetHeaders.Stamp(
            source, slot, new SourcePosition(commit, end, xid, "7390000000000000001", 1L)),
        null);
  }

  static TailScan.Entry record(MessageKind kind, String source, String xid, String commit) {
    return new TailScan.Entry("t-0@x", null, new MessageIdentity(kind, source, xid, commit));
  }

  /** Feeds {@code newestFirst} to the strict scan; returns whether it concluded on its own. */
  static boolean strict(TailScan scan, List<TailScan.Entry> newestFirst) {
    for (TailScan.Entry e : newestFirst) {
      if (scan.strict(e)) {
        return true;
      }
    }
    return false;
  }

  @Test
  void theNewestClosingRecordOfThisSourceAndSlotEndsTheScanSkippingOtherSources() {
    TailScan scan = new TailScan(SOURCE, SLOT);
    boolean done =
        strict(
            scan,
            List.of(
                closing("billing", "billing_slot", "0/3000000", 0x3000048, "900"),
                closing(SOURCE, "another_slot", "0/2F00000", 0x2F00048, "899"),
                record(MessageKind.ENVELOPE, "billing", "898", "0/2E00000"),
                closing(SOURCE, SLOT, "0/2000000", 0x2000048, "771"),
                closing(SOURCE, SLOT, "0/1000000", 0x1000048, "770")));
    assertThat(done).isTrue();
    TopicTail tail = scan.result(false, true, true, "");
    assertThat(tail.status()).isEqualTo(TopicTail.Status.FOUND);
    assertThat(tail.closing().endLsn()).isEqualTo(0x2000048);
    assertThat(tail.closing().transactionId()).isEqualTo("771");
    assertThat(tail.openSnapshotLsn()).isZero();
    assertThat(scan.scanned()).isEqualTo(4);
  }

  @Test
  void snapshotChunksAfterTheNewestClosingRecordAreASnapshotWithoutMarker() {
    TailScan scan = new TailScan(SOURCE, SLOT);
    strict(
        scan,
        List.of(
            record(MessageKind.CHUNK, SOURCE, "snapshot", "0/5000000"),
            record(MessageKind.CHUNK, SOURCE, "snapshot", "0/5000000"),
            closing(SOURCE, SLOT, "0/2000000", 0x2000048, "771")));
    TopicTail tail = scan.result(false, true, true, "");
    assertThat(tail.openSnapshotLsn()).isEqualTo(0x5000000L);
    assertThat(tail.describe()).contains("a snapshot that did not finish");
  }

  @Test
  void chunksOfAStreamedTransactionOrADuplicateAreNoUnfinishedSnapshot() {
    TailScan scan = new TailScan(SOURCE, SLOT);
    strict(
        scan,
        List.of(
            record(MessageKind.CHUNK, SOURCE, "772", "0/2100000"),
            record(MessageKind.MANIFEST, SOURCE, "772", "0/2100000"),
            closing(SOURCE, SLOT, "0/2000000", 0x2000048, "snapshot")));
    assertThat(scan.result(false, true, true, "").openSnapshotLsn()).isZero();
  }

  @Test
  void aClosingRecordOfAnEarlierVersionWithoutOffsetHeadersEndsTheScanWithoutAPosition() {
    TailScan scan = new TailScan(SOURCE, SLOT);
    assertThat(
            strict(
                scan,
                List.of(
                    record(MessageKind.COMMIT_MARKER, SOURCE, "771", "0/2000000"),
                    closing(SOURCE, SLOT, "0/1000000", 0x1000048, "770"))))
        .isTrue();
    TopicTail tail = scan.result(false, true, true, "");
    assertThat(tail.status()).isEqualTo(TopicTail.Status.WITHOUT_OFFSET);
    assertThat(tail.closing()).isNull();
  }

  @Test
  void aLanesNewestSnapshotChunkNewerThanTheNewestClosingRecordIsUnfinished() {
    TailScan scan = new TailScan(SOURCE, SLOT);
    strict(scan, List.of(closing(SOURCE, SLOT, "0/2000000", 0x2000048, "771")));
    assertThat(scan.lane(record(MessageKind.CHUNK, "billing", "snapshot", "0/9000000"))).isFalse();
    assertThat(scan.lane(record(MessageKind.CHUNK, SOURCE, "snapshot", "0/6000000"))).isTrue();
    assertThat(scan.lane(record(MessageKind.CHUNK, SOURCE, "snapshot", "0/1000000"))).isTrue();
    assertThat(scan.result(false, true, true, "").openSnapshotLsn()).isEqualTo(0x6000000L);

    TailScan closed = new TailScan(SOURCE, SLOT);
    strict(closed, List.of(closing(SOURCE, SLOT, "0/6000000", 0x6000000, "snapshot")));
    closed.lane(record(MessageKind.CHUNK, SOURCE, "snapshot", "0/6000000"));
    assertThat(closed.result(false, true, true, "").openSnapshotLsn())
        .as("the lane's chunk belongs to the snapshot whose marker is on the strict topic")
        .isZero();
  }

  @Test
  void aScanWithoutClosingRecordSaysWhetherTheTopicWasEmptyReadWholeOrCutShort() {
    assertThat(new TailScan(SOURCE, SLOT).result(true, true, true, "").status())
        .isEqualTo(TopicTail.Status.EMPTY);
    TailScan whole = new TailScan(SOURCE, SLOT);
    strict(whole, List.of(record(MessageKind.ENVELOPE, "billing", "1", "0/1")));
    assertThat(whole.result(false, true, true, "").status()).isEqualTo(TopicTail.Status.NOT_FOUND);
    TopicTail cut = new TailScan(SOURCE, SLOT).result(false, false, true, "");
    assertThat(cut.status()).isEqualTo(TopicTail.Status.INCOMPLETE);
    assertThat(cut.complete()).isFalse();
    assertThat(new TailScan(SOURCE, SLOT).result(false, true, false, "").complete()).isFalse();
  }
}
