package io.trellara.source.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.BoundaryVocabulary;
import io.trellara.protocol.EventCounts;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.source.kafka.OffsetHeaders;
import io.trellara.source.kafka.SourcePosition;
import io.trellara.source.pg.ServerIdentity;
import io.trellara.source.replication.Outbound;
import io.trellara.source.startup.SourceOffsets;
import io.trellara.source.startup.StoredOffset;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

class TransactionRecordsTest {
  static final ServerIdentity SERVER = new ServerIdentity("7390000000000000001", 1);
  static final Map<String, String> PARTITION = SourceOffsets.partition("orders", "orders_slot");

  static Outbound record(
      MessageKind kind, String xid, String commit, long end, Outbound.Destination d) {
    return new Outbound(
        d,
        0,
        kind,
        new byte[0],
        new TransactionBoundaryKey("orders", "db", commit, xid),
        BoundaryVocabulary.STRICT,
        1L,
        new EventCounts(1, 0),
        1,
        end,
        10,
        false);
  }

  static TransactionRecords records(StoredOffset resumedFrom) {
    return new TransactionRecords(
        PARTITION, "orders", "orders_slot", "strict", "lanes", SERVER, resumedFrom);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> offset(SourceRecord r) {
    return (Map<String, Object>) r.sourceOffset();
  }

  static Map<String, String> headers(SourceRecord r) {
    Map<String, String> m = new HashMap<>();
    for (Header h : r.headers()) {
      m.put(h.key(), String.valueOf(h.value()));
    }
    return m;
  }

  @Test
  void afterAPromotionTheOffsetsNameTheServerOfTheNewestConnection() {
    java.util.concurrent.atomic.AtomicReference<ServerIdentity> newest =
        new java.util.concurrent.atomic.AtomicReference<>();
    TransactionRecords records = records(new StoredOffset.None()).followingServer(newest::get);
    SourceRecord before =
        records.record(
            record(
                MessageKind.ENVELOPE, "771", "0/2000000", 0x2000048, Outbound.Destination.STRICT));
    assertThat(offset(before)).containsEntry("timeline", 1L); // no connection yet: the start's
    newest.set(new ServerIdentity(SERVER.systemId(), 2));
    SourceRecord after =
        records.record(
            record(
                MessageKind.ENVELOPE, "772", "0/3000000", 0x3000048, Outbound.Destination.STRICT));
    assertThat(offset(after))
        .containsEntry("system_id", SERVER.systemId())
        .containsEntry("timeline", 2L);
    assertThat(headers(after)).containsEntry("trellara.offset.timeline", "2");
  }

  @Test
  void recordsBeforeTheFirstClosingRecordCarryTheResumedPositionNeverANullOffset() {
    SourceRecord chunk =
        records(new StoredOffset.None())
            .record(
                record(MessageKind.CHUNK, "771", "0/2000000", 0, Outbound.Destination.PARTITIONED));
    assertThat(chunk.sourceOffset()).isEqualTo(SourceOffsets.NO_POSITION);
    assertThat(chunk.sourcePartition()).isSameAs(PARTITION);
    assertThat(chunk.topic()).isEqualTo("lanes");
    SourcePosition from = new SourcePosition("0/1000000", 0x1000048, "770", SERVER.systemId(), 1L);
    SourceRecord resumed =
        records(new StoredOffset.At(from))
            .record(record(MessageKind.CHUNK, "771", "0/2000000", 0, Outbound.Destination.STRICT));
    assertThat(offset(resumed)).containsEntry("end_lsn", 0x1000048L);
  }

  @Test
  void theClosingRecordSetsTheOffsetAndRepeatsItInItsHeadersTheOthersCarryNone() {
    TransactionRecords records = records(new StoredOffset.None());
    SourceRecord chunk =
        records.record(
            record(MessageKind.CHUNK, "771", "0/2000000", 0, Outbound.Destination.STRICT));
    SourceRecord marker =
        records.record(
            record(
                MessageKind.COMMIT_MARKER,
                "771",
                "0/2000000",
                0x2000048,
                Outbound.Destination.STRICT));
    assertThat(headers(chunk)).doesNotContainKey(OffsetHeaders.END_LSN);
    assertThat(offset(marker))
        .containsEntry("commit_lsn", "0/2000000")
        .containsEntry("end_lsn", 0x2000048L)
        .containsEntry("transaction_id", "771")
        .containsEntry("system_id", "7390000000000000001")
        .containsEntry("timeline", 1L);
    assertThat(headers(marker))
        .containsEntry("trellara.kind", "commit_marker")
        .containsEntry("trellara.offset.source_id", "orders")
        .containsEntry("trellara.offset.slot", "orders_slot")
        .containsEntry("trellara.offset.end_lsn", "0/2000048")
        .containsEntry("trellara.offset.transaction_id", "771");
    OffsetHeaders.Stamp stamp = OffsetHeaders.read(headers(marker)::get);
    assertThat(new StoredOffset.At(stamp.position()).toMap()).isEqualTo(marker.sourceOffset());
    SourceRecord next =
        records.record(
            record(MessageKind.CHUNK, "772", "0/2100000", 0, Outbound.Destination.STRICT));
    assertThat(next.sourceOffset()).isEqualTo(marker.sourceOffset());
  }

  @Test
  void aSnapshotsRecordsBeforeItsMarkerSayRunningWithTheConsistentPoint() {
    TransactionRecords records = records(new StoredOffset.None());
    SourceRecord chunk =
        records.record(
            record(MessageKind.CHUNK, "snapshot", "0/16B3748", 0, Outbound.Destination.STRICT));
    assertThat(offset(chunk))
        .containsEntry("snapshot", "running")
        .containsEntry("snapshot_lsn", "0/16B3748");
    assertThat(StoredOffset.of(chunk.sourceOffset()))
        .isEqualTo(new StoredOffset.Running(0x16B3748L));
    SourceRecord marker =
        records.record(
            record(
                MessageKind.COMMIT_MARKER,
                "snapshot",
                "0/16B3748",
                0x16B3748L,
                Outbound.Destination.STRICT));
    assertThat(StoredOffset.of(marker.sourceOffset())).isInstanceOf(StoredOffset.At.class);
    assertThat(headers(marker)).containsEntry("trellara.offset.transaction_id", "snapshot");
  }

  /**
   * With a key, every record leaves as a SignedMessage: the encoded bytes and a tag over them, the
   * topic and the partition the task chose (a lane of the partitioned topic here).
   */
  @Test
  void signsEachRecordOverItsBytesTopicAndPartitionWithTheConfiguredKey() {
    Map<String, String> props =
        TrellaraSourceConfigTest.with(
            "record.authentication.keys", "k1=one-source-secret-001,k2=two-source-secret-002",
            "record.authentication.key.id", "k2");
    TransactionRecords records =
        records(new StoredOffset.None()).signing(RecordSigning.of(new TrellaraSourceConfig(props)));
    assertThat(records.signingKeyId()).isEqualTo("k2");
    io.trellara.protocol.codec.EncodedMessage chunk =
        io.trellara.protocol.codec.TrellaraCodec.encode(
            io.trellara.protocol.sample.SampleTransactions.envelope(2, false));
    Outbound o =
        new Outbound(
            Outbound.Destination.PARTITIONED,
            4,
            MessageKind.ENVELOPE,
            chunk,
            new TransactionBoundaryKey("orders", "db", "0/2000000", "771"),
            BoundaryVocabulary.STRICT,
            1L,
            new EventCounts(1, 0),
            1,
            0,
            10,
            false);
    SourceRecord r = records.record(o);
    var signed = (io.trellara.protocol.auth.SignedMessage) r.value();
    assertThat(signed.message()).isSameAs(chunk);
    var verifier =
        new io.trellara.protocol.auth.RecordVerifier(
            java.util.List.of(
                io.trellara.protocol.auth.AuthKey.ofText("k2", "two-source-secret-002")),
            false);
    assertThat(verifier.verify("lanes", 4, chunk.bytes(), signed.authHeader())).isEqualTo("k2");
    assertThat(records(new StoredOffset.None()).record(o).value()).isSameAs(chunk); // off
  }

  @Test
  void recordsHeldByAnOnlineSnapshotCarryThePositionBeforeItsSignalUntilItsMarker() {
    TransactionRecords records = records(new StoredOffset.None());
    records.record(
        record(MessageKind.ENVELOPE, "770", "0/1000000", 0x1000048, Outbound.Destination.STRICT));
    // the signal was taken: a streamed transaction before the consistent point, then the
    // snapshot's chunk, are held at the position before the signal
    Outbound between =
        record(MessageKind.ENVELOPE, "771", "0/2000000", 0x2000048, Outbound.Destination.STRICT)
            .asHeld();
    SourceRecord streamed = records.record(between);
    SourceRecord chunk =
        records.record(
            record(MessageKind.CHUNK, "snapshot", "0/3000000", 0, Outbound.Destination.STRICT)
                .asHeld());
    assertThat(offset(streamed)).containsEntry("end_lsn", 0x1000048L).doesNotContainKey("snapshot");
    assertThat(offset(chunk)).containsEntry("end_lsn", 0x1000048L).doesNotContainKey("snapshot");
    assertThat(headers(chunk)).containsEntry(OffsetHeaders.END_LSN, "0/1000048");
    assertThat(TransactionRecords.acknowledgedLsn(between)).isEqualTo(1);
    SourceRecord marker =
        records.record(
            record(
                MessageKind.COMMIT_MARKER,
                "snapshot",
                "0/3000000",
                0x3000000,
                Outbound.Destination.STRICT));
    assertThat(offset(marker)).containsEntry("end_lsn", 0x3000000L);
    SourceRecord next =
        records.record(
            record(MessageKind.CHUNK, "772", "0/4000000", 0, Outbound.Destination.STRICT));
    assertThat(offset(next)).containsEntry("end_lsn", 0x3000000L);
  }
}
