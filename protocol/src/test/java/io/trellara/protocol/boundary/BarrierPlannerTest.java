package io.trellara.protocol.boundary;

import static io.trellara.protocol.sample.SampleTransactions.ORDERS_SCHEMA;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.EventKey;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.sample.SampleTransactions;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.RowImage;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import io.trellara.protocol.validation.ProtocolRule;
import io.trellara.protocol.validation.ProtocolViolationException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BarrierPlannerTest {
  private static final TransactionEnvelope TX = SampleTransactions.envelope(25, true);

  private static BarrierPlanner.TransactionHeader header() {
    return new BarrierPlanner.TransactionHeader(
        1,
        TX.getSourceId(),
        TX.getDatabaseId(),
        TX.getDatasetId(),
        TX.getTransactionId(),
        TX.getBeginLsn(),
        TX.getCommitLsn(),
        TX.getCommitTimestampMs());
  }

  private static List<Object> inTotalOrder() {
    List<Object> all = new ArrayList<>(TX.getChangesList());
    all.addAll(TX.getDdlEventsList());
    all.sort(
        java.util.Comparator.comparingLong(
            e -> e instanceof ChangeRecord c ? c.getTotalOrder() : ((DdlEvent) e).getTotalOrder()));
    return all;
  }

  @Test
  void partitionedLanesStreamChunksAsTheyFillAndTheBarrierVerifies() {
    List<BarrierPlanner.PlannedChunk> planned = new ArrayList<>();
    BarrierPlanner planner =
        BarrierPlanner.partitioned(header(), 3, 4, Long.MAX_VALUE, planned::add);
    int added = 0;
    for (Object e : inTotalOrder()) {
      if (e instanceof ChangeRecord c) {
        planner.addChange((int) (c.getTotalOrder() % 3), c, TX.getSchemaVersions(0));
      } else {
        planner.addDdl(0, (DdlEvent) e);
      }
      if (++added == 12) {
        // chunks leave while the transaction is still being planned: lanes of 4 filled by now
        assertThat(planned).isNotEmpty();
      }
    }
    BarrierPlanner.Closing closing = planner.finish();

    List<PartitionChunk> chunks =
        planned.stream().map(p -> TrellaraCodec.decodeChunk(p.message().bytes())).toList();
    TransactionManifest manifest = TrellaraCodec.decodeManifest(closing.manifest().bytes());
    TransactionCommitMarker marker =
        TrellaraCodec.decodeCommitMarker(closing.commitMarker().bytes());
    BarrierVerifier.verify(manifest, marker, chunks);

    assertThat(manifest.getBoundaryMode()).isEqualTo(ManifestBoundaryMode.PARTITIONED_SCALE_MODE);
    assertThat(manifest.getPartitionCount()).isEqualTo(3);
    assertThat(manifest.getGlobalEventCount())
        .isEqualTo(TX.getChangesCount() + TX.getDdlEventsCount());
    assertThat(manifest.getDdlEventCount()).isEqualTo(TX.getDdlEventsCount());
    assertThat(marker.getParticipatingPartitionCount()).isEqualTo(3);
    assertThat(chunks)
        .allSatisfy(
            c -> assertThat(c.getChangesCount() + c.getDdlEventsCount()).isLessThanOrEqualTo(4));
    // a lane's chunks are numbered 0,1,2.. and each lane stays in total order
    for (int lane = 0; lane < 3; lane++) {
      int l = lane;
      List<PartitionChunk> ofLane = chunks.stream().filter(c -> c.getPartitionId() == l).toList();
      for (int i = 0; i < ofLane.size(); i++) {
        assertThat(ofLane.get(i).getChunkSequence()).isEqualTo(i);
      }
    }
    assertThat(planned)
        .extracting(BarrierPlanner.PlannedChunk::checksum)
        .containsExactlyElementsOf(chunks.stream().map(PartitionChunk::getChecksum).toList());
  }

  @Test
  void strictChunkedNumbersChunksAsIndexesAndCutsByBytes() {
    List<BarrierPlanner.PlannedChunk> planned = new ArrayList<>();
    BarrierPlanner planner = BarrierPlanner.strictChunked(header(), 1_000, 2_000, planned::add);
    for (Object e : inTotalOrder()) {
      if (e instanceof ChangeRecord c) {
        planner.addChange(7, c, TX.getSchemaVersions(0));
      } else {
        planner.addDdl(7, (DdlEvent) e);
      }
    }
    BarrierPlanner.Closing closing = planner.finish();
    assertThat(planned.size()).isGreaterThan(1);
    for (int i = 0; i < planned.size(); i++) {
      assertThat(planned.get(i).partitionId()).isEqualTo(i);
      assertThat(planned.get(i).chunkSequence()).isZero();
      assertThat(planned.get(i).message().bytes().length).isLessThanOrEqualTo(2_000);
    }
    assertThat(closing.manifestMessage().getPartitionCount()).isZero();
    assertThat(closing.manifestMessage().getBoundaryMode())
        .isEqualTo(ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER);
  }

  @Test
  void anEmptyBarrierIsRejectedAtPlanning() {
    BarrierPlanner planner =
        BarrierPlanner.partitioned(
            header(),
            2,
            10,
            Long.MAX_VALUE,
            c -> {
              throw new AssertionError("nothing to publish");
            });
    assertThatThrownBy(planner::finish)
        .isInstanceOfSatisfying(
            ProtocolViolationException.class,
            e -> assertThat(e.rule()).isEqualTo(ProtocolRule.EMPTY_BARRIER));
  }

  @Test
  void theInMemoryFormEqualsTheStreamedForm() {
    ChunkedBarrier.Barrier b = ChunkedBarrier.strictChunked(TX, 5);
    TransactionManifest m = TrellaraCodec.decodeManifest(b.manifest().bytes());
    BarrierVerifier.verify(
        m,
        TrellaraCodec.decodeCommitMarker(b.commitMarker().bytes()),
        b.chunks().stream().map(c -> TrellaraCodec.decodeChunk(c.bytes())).toList());
    assertThat(b.chunks())
        .hasSize((int) Math.ceil((TX.getChangesCount() + TX.getDdlEventsCount()) / 5.0));
  }

  /** TX's first insert as the {@code order}-th event, its note {@code noteBytes} long. */
  private static ChangeRecord insertWithNote(long order, int noteBytes) {
    ChangeRecord first = TX.getChanges(0);
    RowImage.Builder after = first.getAfter().toBuilder();
    after.setColumns(
        4,
        ColumnValue.newBuilder()
            .setState(ColumnState.COLUMN_STATE_VALUE)
            .setText("n".repeat(noteBytes)));
    after.setColumns(0, after.getColumns(0).toBuilder().setText(Long.toString(order)));
    return first.toBuilder()
        .setTotalOrder(order)
        .setTableOrder(order)
        .setIdempotencyKey(
            EventKey.prefix(TX.getSourceId(), TX.getCommitLsn(), TX.getTransactionId()) + order)
        .setAfter(after)
        .build();
  }

  private static List<PartitionChunk> decoded(List<BarrierPlanner.PlannedChunk> planned) {
    return planned.stream().map(p -> TrellaraCodec.decodeChunk(p.message().bytes())).toList();
  }

  /**
   * The reported failure: lanes of 100 kB rows below their change limit closed only after the event
   * that took them past dataset.chunk.max_bytes, so a chunk came out larger than the largest record
   * the source announced. Every chunk stays within the bound, and is cut only when the next event
   * would not fit.
   */
  @Test
  void partitionedChunksOf100kBValuesStayWithinTheByteBoundAndAreCutOnlyWhenFull() {
    long bound = 1_000_000;
    List<BarrierPlanner.PlannedChunk> planned = new ArrayList<>();
    BarrierPlanner planner = BarrierPlanner.partitioned(header(), 4, 5_000, bound, planned::add);
    java.util.Random random = new java.util.Random(34);
    List<ChangeRecord> added = new ArrayList<>();
    for (long order = 1; order <= 240; order++) {
      int note = order % 3 == 0 ? 100 * 1024 : 1 + random.nextInt(120 * 1024);
      ChangeRecord c = insertWithNote(order, note).toBuilder().setPartitionOrder(order).build();
      added.add(c);
      planner.addChange((int) (order % 4), c, ORDERS_SCHEMA);
    }
    BarrierPlanner.Closing closing = planner.finish();
    List<PartitionChunk> chunks = decoded(planned);
    BarrierVerifier.verify(
        TrellaraCodec.decodeManifest(closing.manifest().bytes()),
        TrellaraCodec.decodeCommitMarker(closing.commitMarker().bytes()),
        chunks);
    assertThat(planned).hasSizeGreaterThan(4 * 3);
    assertThat(planned)
        .allSatisfy(p -> assertThat((long) p.message().bytes().length).isLessThanOrEqualTo(bound));
    for (int i = 0; i < chunks.size(); i++) {
      PartitionChunk c = chunks.get(i);
      int lane = c.getPartitionId();
      java.util.Optional<PartitionChunk> next =
          chunks.stream()
              .filter(
                  n ->
                      n.getPartitionId() == lane
                          && n.getChunkSequence() == c.getChunkSequence() + 1)
              .findFirst();
      if (next.isPresent()) {
        // the lane's next event would not have fitted: the chunk was not cut early
        long nextEvent =
            com.google.protobuf.CodedOutputStream.computeMessageSize(
                PartitionChunk.CHANGES_FIELD_NUMBER, next.get().getChanges(0));
        assertThat(planned.get(i).message().bytes().length + nextEvent).isGreaterThan(bound);
      }
    }
  }

  @Test
  void anEventThatFitsOnlyAloneClosesTheOpenChunkAndTravelsInItsOwn() {
    long bound = 1_000_000;
    List<BarrierPlanner.PlannedChunk> planned = new ArrayList<>();
    BarrierPlanner planner = BarrierPlanner.strictChunked(header(), 5_000, bound, planned::add);
    planner.addChange(0, insertWithNote(1, 300_000), ORDERS_SCHEMA);
    planner.addChange(0, insertWithNote(2, 990_000), ORDERS_SCHEMA);
    planner.addChange(0, insertWithNote(3, 10), ORDERS_SCHEMA);
    planner.finish();
    // the 990 kB event does not fit behind the 300 kB one; the small one still fits behind it
    assertThat(decoded(planned)).extracting(PartitionChunk::getChangesCount).containsExactly(1, 2);
    assertThat(planned)
        .allSatisfy(p -> assertThat((long) p.message().bytes().length).isLessThanOrEqualTo(bound));
  }

  @Test
  void anEventTooLargeForAChunkOfItsOwnIsRefusedWithItsTotalOrderAndSize() {
    List<BarrierPlanner.PlannedChunk> planned = new ArrayList<>();
    BarrierPlanner planner =
        BarrierPlanner.partitioned(header(), 4, 5_000, 1_000_000, planned::add);
    planner.addChange(1, insertWithNote(1, 100 * 1024), ORDERS_SCHEMA);
    assertThatThrownBy(() -> planner.addChange(2, insertWithNote(2, 5 << 20), ORDERS_SCHEMA))
        .isInstanceOfSatisfying(
            ChunkBoundException.class,
            e -> {
              assertThat(e.subject()).isEqualTo(ChunkBoundException.Subject.EVENT);
              assertThat(e.totalOrder()).isEqualTo(2);
              assertThat(e.field()).isEqualTo("total_order 2");
              assertThat(e.neededBytes()).isGreaterThan(5 << 20);
              assertThat(e.maxBytes()).isEqualTo(1_000_000);
              assertThat(e.eventKey())
                  .isEqualTo(
                      EventKey.transaction(
                          TX.getSourceId(), TX.getCommitLsn(), TX.getTransactionId()));
            });
    assertThat(planned).as("the refused event published nothing").isEmpty();
  }

  @Test
  void aManifestThatWouldOutgrowTheBoundIsRefusedAsItsEntriesGrow() {
    List<BarrierPlanner.PlannedChunk> planned = new ArrayList<>();
    BarrierPlanner planner = BarrierPlanner.partitioned(header(), 4, 1, 4_096, planned::add);
    assertThatThrownBy(
            () -> {
              for (long order = 1; order <= 1_000; order++) {
                planner.addChange(
                    (int) (order % 4),
                    insertWithNote(order, 10).toBuilder().setPartitionOrder(order).build(),
                    ORDERS_SCHEMA);
              }
            })
        .isInstanceOfSatisfying(
            ChunkBoundException.class,
            e -> {
              assertThat(e.subject()).isEqualTo(ChunkBoundException.Subject.MANIFEST);
              assertThat(e.field()).isEqualTo("partitions");
              assertThat(e.neededBytes()).isGreaterThan(4_096);
            });
    assertThat(planned.size()).isLessThan(1_000);
  }

  @Test
  void withALargerRecordBoundAnEventAboveTheChunkBoundTravelsAloneWithinTheRecordBound() {
    List<BarrierPlanner.PlannedChunk> planned = new ArrayList<>();
    BarrierPlanner planner =
        BarrierPlanner.strictChunked(header(), 10_000, 1_000_000, 8_000_000, planned::add);
    planner.addChange(0, insertWithNote(1, 600_000), ORDERS_SCHEMA);
    planner.addChange(0, insertWithNote(2, 5 << 20), ORDERS_SCHEMA);
    planner.addChange(0, insertWithNote(3, 600_000), ORDERS_SCHEMA);
    planner.addChange(0, insertWithNote(4, 600_000), ORDERS_SCHEMA);
    planner.finish();
    assertThat(decoded(planned))
        .extracting(PartitionChunk::getChangesCount)
        .containsExactly(1, 1, 1, 1);
    assertThat(planned.get(1).message().bytes().length).isBetween(5 << 20, 8_000_000);
    assertThat(List.of(planned.get(0), planned.get(2), planned.get(3)))
        .allSatisfy(p -> assertThat(p.message().bytes().length).isLessThanOrEqualTo(1_000_000));
  }
}
