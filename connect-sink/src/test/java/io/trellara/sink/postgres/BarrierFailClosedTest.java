package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.BarrierApplyTest.ACCOUNTS;
import static io.trellara.sink.postgres.BarrierApplyTest.opens;
import static io.trellara.sink.postgres.Feed.concat;
import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.validation.ProtocolRule;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.sink.buffer.Input;
import io.trellara.sink.engine.SinkEngine;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every fail-closed case of the specification, each with a crafted stream: a good transaction T1 is
 * applied, then the bad transaction T2 arrives followed by a good T3. Apply stops naming the rule;
 * the target holds exactly T1 (rows, dedup records), nothing of T2 or T3.
 */
class BarrierFailClosedTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec("CREATE TABLE app.accounts (id int PRIMARY KEY, balance numeric NOT NULL)");
  }

  /** T2: five new accounts, strict chunked two events a chunk (3 chunks). */
  private static TransactionEnvelope t2() {
    return opens(0x200, 11, 15, "200");
  }

  private static Barriers strict(TransactionEnvelope e) {
    return Barriers.strictChunked(e, 2);
  }

  /** Lanes by account id modulo 3, two events a chunk. */
  private static Barriers lanes(TransactionEnvelope e) {
    return Barriers.partitioned(
        e,
        3,
        2,
        event ->
            Integer.parseInt(
                    ((io.trellara.protocol.v1.ChangeRecord) event)
                        .getAfter()
                        .getColumns(0)
                        .getText())
                % 3);
  }

  /**
   * Feeds T1 (applied), then {@code bad} and T3: in one batch (strict chunks verified whole in
   * memory or staged), and again on a fresh target one record per batch (strict chunks applied as
   * they arrive). Both stop naming the same rule with nothing of T2 or T3 applied; returns what
   * stopped the batched apply.
   */
  private Throwable failsClosed(List<Barriers.Published> bad, String rule) {
    Throwable streamed = failsClosed(bad, rule, true);
    reset();
    Throwable batched = failsClosed(bad, rule, false);
    assertThat(ruleOf(streamed)).as("rule when streamed").isEqualTo(ruleOf(batched));
    return batched;
  }

  private Throwable failsClosed(List<Barriers.Published> bad, String rule, boolean oneByOne) {
    Barriers t1 = strict(opens(0x100, 1, 3, "100"));
    Barriers t3 = lanes(opens(0x300, 21, 26, "300"));
    Feed feed = new Feed();
    Throwable thrown;
    try (TransactionApplier a =
            new TransactionApplier(
                pg.connections(), RelationMapper.identity(), ApplyOptions.builder("s1").build());
        SinkEngine p = new SinkEngine(a, null, 1000, 64 << 20, 0)) {
      if (oneByOne) {
        Feed.oneByOne(p, feed.inputs(t1.all()));
      } else {
        p.accept(feed.inputs(t1.all()));
      }
      assertThat(pg.count("trellara_sink.applied_transactions")).isEqualTo(1);
      thrown =
          catchThrowable(
              () -> {
                if (oneByOne) {
                  Feed.oneByOne(p, feed.inputs(concat(bad, t3.all())));
                } else {
                  Feed.batched(p, feed.inputs(concat(bad, t3.all())));
                }
              });
    }
    assertThat(thrown)
        .as("apply must stop (" + (oneByOne ? "one record per batch" : "one batch") + ")")
        .isNotNull();
    assertThat(thrown.getMessage()).contains(rule);
    assertThat(pg.rows("SELECT id, balance FROM app.accounts ORDER BY id"))
        .containsExactly(List.of("1", "100"), List.of("2", "100"), List.of("3", "100"));
    assertThat(pg.rows("SELECT commit_lsn::text FROM trellara_sink.applied_transactions"))
        .containsExactly(List.of("0/100"));
    return thrown;
  }

  private static ProtocolRule ruleOf(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof ProtocolViolationException pve) {
        return pve.rule();
      }
    }
    return null;
  }

  @Test
  void aMissingChunkInStrictChunkedOrder() {
    Throwable t = failsClosed(strict(t2()).allWithout(1), "MISSING_CHUNK");
    assertThat(ruleOf(t)).isEqualTo(ProtocolRule.MISSING_CHUNK);
    assertThat(t).hasMessageContaining("partitions[1]").hasMessageContaining("pg-test:0/200:512");
  }

  /**
   * The lane carries a later transaction (T3 on lane 1) without T2's chunk: it can no longer
   * arrive.
   */
  @Test
  void aMissingChunkOfALaneThatMovedPastTheTransaction() {
    Barriers b = lanes(t2());
    int laneOne =
        b.chunkMessages()
            .indexOf(
                b.chunkMessages().stream().filter(m -> m.lane() == 1).findFirst().orElseThrow());
    Throwable t = failsClosed(b.allWithout(laneOne), "MISSING_CHUNK");
    assertThat(ruleOf(t)).isEqualTo(ProtocolRule.MISSING_CHUNK);
    assertThat(t).hasMessageContaining("lane 1 has been staged past commit 0/200");
  }

  @Test
  void aTransactionIdMismatchBetweenAChunkAndItsManifest() {
    Barriers b = strict(t2());
    // the same changes under transaction 999, listed by T2's manifest with its checksum
    TransactionEnvelope other = opensAs("999");
    Barriers bad = b.withChunk(1, strict(other).chunks().get(1));
    Throwable t = failsClosed(bad.all(), "TRANSACTION_ID_MISMATCH");
    assertThat(ruleOf(t)).isEqualTo(ProtocolRule.TRANSACTION_ID_MISMATCH);
  }

  private static TransactionEnvelope opensAs(String txId) {
    Tx t = tx("pg-test", 0x200, txId);
    for (int id = 11; id <= 15; id++) {
      t.insert(
          ACCOUNTS, key("id", "integer", Integer.toString(id)), val("balance", "numeric", "200"));
    }
    return t.build();
  }

  @Test
  void anEventCountMismatchBetweenAChunkAndTheManifest() {
    // the manifest claims chunk 0 holds 3 events (and 6 in all); it holds 2
    Barriers bad =
        strict(t2())
            .withManifest(
                m ->
                    m.setPartitions(
                            0, m.getPartitions(0).toBuilder().setEventCount(3).setLastTotalOrder(3))
                        .setGlobalEventCount(6));
    Throwable t = failsClosed(bad.all(), "EVENT_COUNT_MISMATCH");
    assertThat(ruleOf(t)).isEqualTo(ProtocolRule.EVENT_COUNT_MISMATCH);
  }

  @Test
  void aDdlEventCountThatTheChunksDoNotHold() {
    // the manifest (and its marker, sealed from it) claims one DDL event; the chunks hold none
    for (Barriers bad :
        List.of(
            strict(t2()).withManifest(m -> m.setDdlEventCount(1)),
            lanes(t2()).withManifest(m -> m.setDdlEventCount(1)))) {
      reset();
      Throwable t = failsClosed(bad.all(), "ddl_event_count");
      assertThat(ruleOf(t)).isEqualTo(ProtocolRule.EVENT_COUNT_MISMATCH);
    }
  }

  @Test
  void aChecksumMismatchOfAnEnvelope() {
    byte[] bytes = Barriers.flip(TrellaraCodec.encode(t2()).bytes(), "200");
    Throwable t = failsClosed(List.of(Feed.envelope(bytes, "t2")), "CHECKSUM_MISMATCH");
    assertThat(t).isInstanceOf(Input.RejectedException.class).hasMessageContaining("strict-0@");
  }

  @Test
  void aChecksumMismatchOfAChunk() {
    Throwable t = failsClosed(strict(t2()).flipChunkByte(1, "200").all(), "CHECKSUM_MISMATCH");
    assertThat(ruleOf(t)).isEqualTo(ProtocolRule.CHECKSUM_MISMATCH);
  }

  @Test
  void aChecksumMismatchOfALaneChunk() {
    Throwable t = failsClosed(lanes(t2()).flipChunkByte(0, "200").all(), "CHECKSUM_MISMATCH");
    assertThat(t).hasMessageContaining("lanes-");
  }

  @Test
  void aChecksumMismatchOfAManifest() {
    failsClosed(strict(t2()).flipManifestByte("pg-test").all(), "CHECKSUM_MISMATCH");
  }

  @Test
  void aChecksumMismatchOfACommitMarker() {
    failsClosed(lanes(t2()).flipMarkerByte("pg-test").all(), "CHECKSUM_MISMATCH");
  }

  /** A valid chunk, staged, whose checksum is not the one its manifest entry lists. */
  @Test
  void aChunkWhoseChecksumDiffersFromItsManifestEntry() {
    Barriers bad =
        strict(t2())
            .withManifest(
                m ->
                    m.setPartitions(
                        2, m.getPartitions(2).toBuilder().setChecksum(0x1234_5678_9abc_def0L)));
    Throwable t = failsClosed(bad.all(), "CHUNK_CHECKSUM_MISMATCH");
    assertThat(ruleOf(t)).isEqualTo(ProtocolRule.CHUNK_CHECKSUM_MISMATCH);
  }

  @Test
  void aCommitMarkerThatDoesNotBindItsManifest() {
    Barriers bad = lanes(t2()).withMarker(k -> k.setManifestChecksum(42));
    Throwable t = failsClosed(bad.all(), "MARKER_MANIFEST_CHECKSUM_MISMATCH");
    assertThat(ruleOf(t)).isEqualTo(ProtocolRule.MARKER_MANIFEST_CHECKSUM_MISMATCH);
  }

  @Test
  void anEmptyBarrier() {
    Barriers noEvents = strict(t2()).withManifest(m -> m.setGlobalEventCount(0));
    assertThat(ruleOf(failsClosed(noEvents.all(), "EMPTY_BARRIER")))
        .isEqualTo(ProtocolRule.EMPTY_BARRIER);
    reset();
    Barriers zeroMarker =
        lanes(t2()).withMarker(k -> k.setGlobalEventCount(0).setParticipatingPartitionCount(0));
    assertThat(ruleOf(failsClosed(zeroMarker.all(), "EMPTY_BARRIER")))
        .isEqualTo(ProtocolRule.EMPTY_BARRIER);
    reset();
    Barriers noChunks = strict(t2()).withManifest(m -> m.clearPartitions().setGlobalEventCount(0));
    failsClosed(
        noChunks.closing(), "MANIFEST_PARTITIONS_EMPTY"); // the validator's rule for zero chunks
  }

  /** A change in one chunk and a DDL event in another share total_order 2. */
  @Test
  void aDuplicateTotalOrderBetweenAChangeAndADdlEventOfAnotherChunk() {
    TransactionEnvelope e =
        tx(0x200)
            .insert(ACCOUNTS, key("id", "integer", "11"), val("balance", "numeric", "1"))
            .insert(ACCOUNTS, key("id", "integer", "12"), val("balance", "numeric", "1"))
            .ddl("ALTER TABLE app.accounts ADD COLUMN x int", "app.accounts")
            .build();
    DdlEvent ddlAtTwo = e.getDdlEvents(0).toBuilder().setTotalOrder(2).build();
    for (ManifestBoundaryMode mode : ManifestBoundaryMode.values()) {
      if (mode == ManifestBoundaryMode.MANIFEST_BOUNDARY_MODE_UNSPECIFIED
          || mode == ManifestBoundaryMode.UNRECOGNIZED) {
        continue;
      }
      boolean lanes = mode == ManifestBoundaryMode.PARTITIONED_SCALE_MODE;
      Barriers bad =
          Barriers.of(
              e,
              mode,
              lanes ? 3 : 0,
              List.of(
                  new Barriers.ChunkSpec(0, 0, e.getChangesList(), List.of()),
                  new Barriers.ChunkSpec(lanes ? 2 : 1, 0, List.of(), List.of(ddlAtTwo))));
      reset();
      Throwable t = failsClosed(bad.all(), "DUPLICATE_TOTAL_ORDER");
      assertThat(ruleOf(t)).as(mode.name()).isEqualTo(ProtocolRule.DUPLICATE_TOTAL_ORDER);
      assertThat(t).hasMessageContaining("pg-test:0/200:512:2");
    }
  }

  /**
   * A source that stopped between a manifest and its marker re-publishes from its last acknowledged
   * transaction: the lone manifest proves nothing and is discarded; each transaction is applied
   * once.
   */
  @Test
  void aManifestWithoutItsCommitMarkerIsDiscardedWhenTheSourceRepublishes() {
    Barriers t1 = strict(opens(0x100, 1, 3, "100"));
    Barriers t2 = strict(t2());
    Barriers t3 = lanes(opens(0x300, 21, 26, "300"));
    Feed feed = new Feed();
    try (TransactionApplier a =
            new TransactionApplier(
                pg.connections(), RelationMapper.identity(), ApplyOptions.builder("s1").build());
        SinkEngine p = new SinkEngine(a, null, 1000, 64 << 20, 0)) {
      p.accept(feed.inputs(t1.all()));
      p.accept(
          feed.inputs(
              concat(t2.chunkMessages(), t2.closing().subList(0, 1)))); // no marker: the crash
      p.accept(feed.inputs(concat(t1.all(), t2.all(), t3.all())));
      p.poll();
      assertThat(p.orphanManifestsDiscarded()).isEqualTo(1);
    }
    assertThat(
            pg.rows(
                "SELECT commit_lsn::text FROM trellara_sink.applied_transactions ORDER BY commit_lsn"))
        .containsExactly(List.of("0/100"), List.of("0/200"), List.of("0/300"));
  }

  /**
   * A lane chunk that never arrives, on a lane that carries nothing later, would keep the barrier
   * waiting forever; with barrier.max.wait.ms set it fails closed as MISSING_CHUNK naming the lane.
   */
  @Test
  void aBarrierWaitingLongerThanItsMaximumFailsAsAMissingChunkNamingTheLane() {
    Barriers t1 = strict(opens(0x100, 1, 3, "100"));
    Barriers b = lanes(t2());
    long lane = Integer.toUnsignedLong(b.chunks().get(0).getPartitionId());
    Feed feed = new Feed();
    try (TransactionApplier a =
            new TransactionApplier(
                pg.connections(), RelationMapper.identity(), ApplyOptions.builder("s1").build());
        SinkEngine p =
            new SinkEngine(a, null, 1000, 64 << 20, 0)
                .maxBarrierWait(java.time.Duration.ofMillis(300))) {
      p.accept(feed.inputs(t1.all()));
      p.accept(feed.inputs(b.allWithout(0)));
      assertThat(p.waiting()).isTrue();
      Throwable t =
          org.awaitility.Awaitility.await()
              .atMost(java.time.Duration.ofSeconds(30))
              .until(() -> catchThrowable(p::poll), java.util.Objects::nonNull);
      assertThat(ruleOf(t)).isEqualTo(ProtocolRule.MISSING_CHUNK);
      assertThat(t)
          .hasMessageContaining("barrier.max.wait.ms")
          .hasMessageContaining("lanes [" + lane);
    }
    assertThat(pg.rows("SELECT commit_lsn::text FROM trellara_sink.applied_transactions"))
        .containsExactly(List.of("0/100"));
  }

  @Test
  void aCommitMarkerWithoutItsManifest() {
    Barriers b = lanes(t2());
    Throwable t =
        failsClosed(concat(b.chunkMessages(), b.closing().subList(1, 2)), "BARRIER_SEQUENCE");
    assertThat(t).hasMessageContaining("a commit marker without its manifest");
  }
}
