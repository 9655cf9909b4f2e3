package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.trellara.protocol.v1.RelationId;
import io.trellara.sink.buffer.Input;
import io.trellara.sink.engine.SinkEngine;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import io.trellara.sink.postgres.settings.FlowBounds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Chunks of a flow a topic writer invented, whose barriers never come: they do not stall the real
 * flow, they are deleted after staging.retention.ms, and past staging.flow.max.bytes a transaction
 * is set aside, so the other transactions of the same lane go on, while a real transaction set
 * aside fails closed at its barrier and applies whole once the bound is raised. Judged by SQL on a
 * real target.
 */
class StagingSweepTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  private static final RelationId ACCOUNTS = rel("app", "accounts");
  private static final TopicPartitionKey STRICT = new TopicPartitionKey(Feed.STRICT, 0);

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec("CREATE TABLE app.accounts (id int PRIMARY KEY, balance text NOT NULL)");
  }

  private static TransactionApplier applier(FlowBounds bounds) {
    return new TransactionApplier(
        pg.connections(),
        RelationMapper.builder().allow(List.of("app.*")).build(),
        ApplyOptions.builder("s").flowBounds(bounds).build());
  }

  /**
   * The lane chunk (lane 0) of {@code n} invented transactions of dataset "invented", ~4 kB each,
   * without their manifests and markers: barriers that never come.
   */
  private static List<Barriers.Published> junk(long fromLsn, int n) {
    List<Barriers.Published> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Tx t = tx("pg-test", fromLsn + i, Long.toString(1000 + fromLsn + i)).dataset("invented");
      for (int id = 0; id < 2; id++) {
        t.insert(
            ACCOUNTS,
            key("id", "integer", Integer.toString(1000 * i + id)),
            val("balance", "text", "x".repeat(2000)));
      }
      out.add(Barriers.partitioned(t.build(), 1, 10, e -> 0).chunkMessages().get(0));
    }
    return out;
  }

  /** A real partitioned transaction of the real flow: its chunk on lane 0, then its barrier. */
  private static List<Input> real(Feed feed, long lsn, int id) {
    Tx t =
        tx(lsn)
            .insert(
                ACCOUNTS,
                key("id", "integer", Integer.toString(id)),
                val("balance", "text", "real"));
    return feed.inputs(Barriers.partitioned(t.build(), 1, 10, e -> 0).all());
  }

  /** Stages every lane chunk, as a task holding no strict partition does. */
  private static SinkEngine staging(TransactionApplier a) {
    return new SinkEngine(a, null, 1000, 64 << 20, 0).holdLanes(Duration.ZERO, 0);
  }

  private static long staged(String dataset) {
    return Long.parseLong(
        pg.one(
            "SELECT count(*) FROM trellara_sink.staged_chunks WHERE dataset_id = '"
                + dataset
                + "'"));
  }

  @Test
  void aRealTransactionAfter29JunkChunksIsAppliedAndTheJunkIsDeletedAfterTheRetention()
      throws Exception {
    FlowBounds bounds = FlowBounds.DEFAULT.staging(Duration.ofSeconds(2), 1L << 30);
    Feed feed = new Feed();
    List<Input> inputs = new ArrayList<>(feed.inputs(junk(0x100, 29)));
    inputs.addAll(real(feed, 0x1000, 1));
    try (TransactionApplier a = applier(bounds);
        SinkEngine p = staging(a)) {
      Feed.oneByOne(p, inputs);
      assertThat(pg.rows("SELECT id, balance FROM app.accounts"))
          .containsExactly(List.of("1", "real"));
      assertThat(staged("invented")).as("the junk is staged, waiting for barriers").isEqualTo(29);
      // the target's clock judges the age: wait until it says every junk chunk is past the
      // retention
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () ->
                  pg.one(
                      "SELECT count(*) FROM trellara_sink.staged_chunks WHERE dataset_id ="
                          + " 'invented' AND staged_at < now() - interval '2 seconds'"),
              "29"::equals);
      List<Input> later = new ArrayList<>(feed.inputs(junk(0x2000, 1)));
      later.addAll(real(feed, 0x3000, 2));
      Feed.oneByOne(p, later);
    }
    assertThat(staged("invented"))
        .as("only the chunk staged after the retention is left")
        .isEqualTo(1);
    assertThat(pg.count("app.accounts")).isEqualTo(2);
  }

  private static final TopicPartitionKey LANE0 = new TopicPartitionKey(Feed.LANES, 0);

  /** The offset the sink's progress in the target records for {@code tp}, or -1 none. */
  private static long progress(TopicPartitionKey tp) {
    return Long.parseLong(
        pg.one(
            "SELECT coalesce(max(next_offset), -1) FROM trellara_sink.progress WHERE topic = '"
                + tp.topic()
                + "' AND kafka_partition = "
                + tp.partition()));
  }

  private static long stagedBytes(String dataset) {
    return Long.parseLong(
        pg.one(
            "SELECT coalesce(sum(octet_length(payload)), 0) FROM trellara_sink.staged_chunks"
                + " WHERE dataset_id = '"
                + dataset
                + "'"));
  }

  @Test
  void junkOfAnInventedFlowPastItsBoundIsSetAsideAndTheRealFlowOnTheSameLaneGoesOn() {
    FlowBounds bounds = FlowBounds.DEFAULT.staging(Duration.ofHours(6), 40_000);
    Feed feed = new Feed();
    List<Input> inputs = new ArrayList<>(feed.inputs(junk(0x100, 15)));
    inputs.addAll(real(feed, 0x1000, 1)); // its lane chunk on lanes/0 too, after the junk
    inputs.addAll(feed.inputs(junk(0x200, 14)));
    inputs.addAll(real(feed, 0x2000, 2));
    inputs.addAll(real(feed, 0x3000, 3));
    try (TransactionApplier a = applier(bounds);
        SinkEngine p = staging(a)) {
      Feed.oneByOne(p, inputs); // no STAGING_FLOW_FULL: the task goes on

      assertThat(pg.rows("SELECT id, balance FROM app.accounts ORDER BY id"))
          .containsExactly(List.of("1", "real"), List.of("2", "real"), List.of("3", "real"));
      assertThat(stagedBytes("invented")).isPositive().isLessThanOrEqualTo(40_000);
      long kept = staged("invented");
      assertThat(a.metrics().transactionsSetAside()).isEqualTo(29 - kept);
      // the first junk transaction set aside is the first that did not fit: lanes/0 at offset kept
      assertThat(p.durablePositions().get(LANE0))
          .as("the lane's committable offset stops at the first set-aside chunk")
          .isEqualTo(kept);
      assertThat(progress(LANE0)).isLessThanOrEqualTo(kept);
    }
  }

  /** A real transaction of {@code rows} rows of ~2 kB each, cut into lane chunks of two events. */
  private static Barriers big(long lsn, int rows) {
    Tx t = tx(lsn);
    for (int id = 0; id < rows; id++) {
      t.insert(
          ACCOUNTS,
          key("id", "integer", Integer.toString(100 + id)),
          val("balance", "text", "r".repeat(2000)));
    }
    return Barriers.partitioned(t.build(), 1, 2, e -> 0);
  }

  @Test
  void aRealChunkedTransactionPastTheBoundFailsAtItsBarrierAndAppliesWholeOnceRaised() {
    Feed feed = new Feed();
    List<Input> inputs = new ArrayList<>(real(feed, 0x500, 1));
    Barriers big = big(0x1000, 20); // ten chunks of ~4 kB: 40 kB past a 20 kB bound
    inputs.addAll(feed.inputs(big.all()));
    inputs.addAll(real(feed, 0x2000, 2));
    String key = FlowKey.of(big.manifest()).eventKey();
    try (TransactionApplier a = applier(FlowBounds.DEFAULT.staging(Duration.ofHours(6), 20_000));
        SinkEngine p = staging(a)) {
      Throwable t = catchThrowable(() -> Feed.oneByOne(p, inputs));
      assertThat(t).isInstanceOf(ApplyException.class);
      assertThat(((ApplyException) t).reason())
          .as(t.getMessage())
          .isEqualTo(ApplyException.Reason.STAGING_FLOW_FULL);
      assertThat(((ApplyException) t).eventKey()).isEqualTo(key);
      assertThat(t).hasMessageContaining("staging.flow.max.bytes");
      assertThat(a.metrics().transactionsSetAside()).isEqualTo(1);
    }
    assertThat(pg.rows("SELECT id FROM app.accounts")).containsExactly(List.of("1"));
    // its first chunks were staged (and their offsets recorded) before the bound was reached: they
    // stay staged; progress stops at the first chunk set aside, so the rest is read again
    long stagedChunks = staged("flow");
    assertThat(stagedBytes("flow")).isLessThanOrEqualTo(20_000);
    assertThat(progress(LANE0))
        .as("not past its first chunk set aside (offset 1 + the chunks staged)")
        .isLessThanOrEqualTo(1 + stagedChunks);
    assertThat(progress(STRICT)).isLessThanOrEqualTo(2);

    // the operator raises the bound and restarts: every partition read again from its progress
    List<Input> again =
        inputs.stream().filter(in -> in.offset() >= Math.max(0, progress(in.partition()))).toList();
    try (TransactionApplier a = applier(FlowBounds.DEFAULT.staging(Duration.ofHours(6), 1L << 20));
        SinkEngine p = staging(a)) {
      Feed.oneByOne(p, again);
    }
    assertThat(pg.count("app.accounts")).as("applied whole, and the one after it").isEqualTo(22);
    assertThat(
            pg.one(
                "SELECT count(*) FROM app.accounts WHERE id >= 100 AND balance = '"
                    + "r".repeat(2000)
                    + "'"))
        .isEqualTo("20");
  }
}
