package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.v1.RelationId;
import io.trellara.sink.buffer.Input;
import io.trellara.sink.engine.ApplyPipeline;
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
 * flow, they are deleted after staging.retention.ms, and staging.flow.max.bytes bounds them by
 * name. Judged by SQL on a real target.
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
  private static ApplyPipeline staging(TransactionApplier a) {
    return new ApplyPipeline(a, null, 1000, 64 << 20, 0).holdLanes(Duration.ZERO, 0);
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
        ApplyPipeline p = staging(a)) {
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

  @Test
  void aFlowPastItsStagingBoundIsRefusedByNameWithNothingStagedOrConsumed() {
    FlowBounds bounds = FlowBounds.DEFAULT.staging(Duration.ofHours(6), 40_000);
    Feed feed = new Feed();
    List<Input> inputs = new ArrayList<>(feed.inputs(junk(0x100, 29)));
    inputs.addAll(real(feed, 0x1000, 1));
    try (TransactionApplier a = applier(bounds);
        ApplyPipeline p = staging(a)) {
      assertThatThrownBy(() -> Feed.oneByOne(p, inputs))
          .hasMessageContaining("STAGING_FLOW_FULL")
          .hasMessageContaining("flow pg-test/invented")
          .hasMessageContaining("staging.flow.max.bytes (40000)");
    }
    long bytes =
        Long.parseLong(
            pg.one(
                "SELECT coalesce(sum(octet_length(payload)), 0) FROM trellara_sink.staged_chunks"));
    assertThat(bytes).isLessThanOrEqualTo(40_000);
    long progress =
        Long.parseLong(pg.one("SELECT coalesce(max(next_offset), 0) FROM trellara_sink.progress"));
    assertThat(progress).as("the refused chunk's offset was not consumed").isLessThan(29);
    assertThat(pg.count("app.accounts")).isZero();
  }
}
