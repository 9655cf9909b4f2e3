package io.trellara.sink.connect;

import static io.trellara.sink.connect.Pipelines.STACK;
import static io.trellara.sink.connect.Pipelines.WAIT;
import static io.trellara.sink.connect.Pipelines.deploySink;
import static io.trellara.sink.connect.Pipelines.deploySource;
import static io.trellara.sink.connect.Pipelines.schema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.identity.ColumnType;
import io.trellara.identity.OwnershipRouting;
import io.trellara.identity.RowIdentityDomain;
import io.trellara.identity.RowIdentityEncoder;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.testplatform.ConnectorStatus;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.KafkaRecord;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * Issue 34, requirement 5: in partitioned scale mode (4 lanes, 2 sink tasks) a row with a 100 kB
 * TOASTed text value changes its ownership key, so it moves to another lane, while the large column
 * is not updated (pgoutput sends it as 'u', unchanged TOAST). With key_change_policy emit_move the
 * source publishes a delete in the old lane and an insert in the new one, and the target equals the
 * source afterwards: under REPLICA IDENTITY DEFAULT the sink carries the value over from the row
 * the delete removes; under FULL the insert takes it from the old row.
 */
@EitherPlatform
class OwnershipMoveIT {
  private static final int LANES = 4;

  /** 100 kB (3,200 md5 digests) that does not compress: stored out of line. */
  private static final String BIG =
      "(SELECT string_agg(md5(t || '-' || i || '-' || g), '') FROM generate_series(1, 3200) g)";

  private static int laneOf(int tenant) {
    byte[] key =
        RowIdentityEncoder.forColumns(RowIdentityDomain.SCAN_KEY, List.of(ColumnType.of(23)))
            .encodeStrings(Integer.toString(tenant));
    return OwnershipRouting.partitionFor(key, LANES);
  }

  /** A tenant above {@code above} whose rows live in another lane than {@code tenant}'s. */
  private static int tenantInAnotherLane(int tenant, int above) {
    int t = above + 1;
    while (laneOf(t) == laneOf(tenant)) {
      t++;
    }
    return t;
  }

  private static List<List<Object>> digest(PostgresDatabase db) {
    return db.query(
        "SELECT tenant, id, title, length(body), md5(body) FROM doc ORDER BY tenant, id");
  }

  @Test
  void aRowWithAnUnchanged100kBValueMovesBetweenLanesUnderReplicaIdentityDefault()
      throws Exception {
    moveBetweenLanes("DEFAULT");
  }

  /**
   * Under REPLICA IDENTITY FULL the old row carries the unchanged value: the source fills the
   * insert half from it, and the sink has nothing to carry over.
   */
  @Test
  void aRowWithAnUnchanged100kBValueMovesBetweenLanesUnderReplicaIdentityFull() throws Exception {
    moveBetweenLanes("FULL");
  }

  private void moveBetweenLanes(String identity) throws Exception {
    try (TestScope scope = STACK.newScope("move" + identity.toLowerCase())) {
      PostgresDatabase src = scope.sourceDatabase();
      PostgresDatabase dst = scope.targetDatabase();
      schema(
          src,
          dst,
          "CREATE TABLE doc (tenant int, id int, title text, body text, PRIMARY KEY (tenant, id))");
      src.execute("ALTER TABLE doc REPLICA IDENTITY " + identity);
      String strict = scope.createTopic("strict", 1);
      String lanes = scope.createTopic("lanes", LANES);
      String source =
          deploySource(
              scope,
              src,
              strict,
              "public.doc",
              Map.of(
                  "dataset.mode", "partitioned_scale_mode",
                  "topic.partitioned", lanes,
                  "dataset.partitioned.partition_count", Integer.toString(LANES),
                  "dataset.partitioned.ownership_keys", "public.doc:tenant",
                  "dataset.partitioned.key_change_policy", "emit_move",
                  "snapshot.mode", "never"));
      String sink = deploySink(scope, "sink", dst, strict + "," + lanes, Map.of("tasks.max", "2"));
      STACK.rest().awaitRunning(sink, 2, WAIT);

      src.execute(
          "INSERT INTO doc SELECT t, i, 'row ' || t || '-' || i, "
              + BIG
              + " FROM generate_series(1, 4) t, generate_series(1, 2) i");
      assertThat(
              src.queryLong(
                  "SELECT pg_relation_size(reltoastrelid) FROM pg_class"
                      + " WHERE oid = 'doc'::regclass"))
          .as("the 100 kB values are stored TOASTed")
          .isGreaterThan(8 * 100_000L);
      await().atMost(WAIT).until(() -> dst.queryLong("SELECT count(*) FROM doc") == 8);

      int to1 = tenantInAnotherLane(1, 100);
      int to2 = tenantInAnotherLane(2, to1);
      int back = tenantInAnotherLane(to2, to2);
      // one statement moving two rows; then, in one transaction, a move and a second move of the
      // same row, a move followed by an update of the moved row, and an ordinary update
      src.execute("UPDATE doc SET tenant = " + to1 + ", title = 'moved' WHERE tenant = 1");
      src.executeInTransaction(
          "UPDATE doc SET tenant = " + to2 + " WHERE tenant = 2 AND id = 1",
          "UPDATE doc SET tenant = " + back + ", title = 'moved twice' WHERE tenant = " + to2,
          "UPDATE doc SET tenant = " + to2 + " WHERE tenant = 3 AND id = 2",
          "UPDATE doc SET title = 'then updated' WHERE tenant = " + to2 + " AND id = 2",
          "UPDATE doc SET title = 'stays' WHERE tenant = 4 AND id = 1");

      await()
          .atMost(WAIT)
          .until(() -> Objects.equals(digest(src), digest(dst)) || failed(source, sink));
      assertThat(STACK.rest().status(source).isRunning(1))
          .as("source RUNNING: %s", STACK.rest().status(source).firstTrace())
          .isTrue();
      ConnectorStatus status = STACK.rest().status(sink);
      assertThat(status.isRunning(2)).as("sink RUNNING: %s", status.firstTrace()).isTrue();
      assertThat(digest(dst)).isEqualTo(digest(src));
      assertThat(dst.queryLong("SELECT count(*) FROM doc WHERE length(body) = 102400"))
          .isEqualTo(8);

      // the moves left their lane: a delete of the old key there, an insert in the new one
      List<ChangeRecord[]> moves = new ArrayList<>();
      List<Integer[]> laneOfMove = new ArrayList<>();
      List<KafkaRecord> records = STACK.broker().readAll(lanes);
      for (KafkaRecord r : records) {
        PartitionChunk chunk = TrellaraCodec.decodeChunk(r.value());
        assertThat(chunk.getPartitionId()).isEqualTo(r.partition());
        for (ChangeRecord c : chunk.getChangesList()) {
          if (c.getOperation() == Operation.OPERATION_INSERT
              && c.getAfter().getColumns(2).getText().startsWith("moved")) {
            moves.add(new ChangeRecord[] {c});
            laneOfMove.add(new Integer[] {r.partition()});
          }
        }
      }
      assertThat(moves).as("the insert halves of the first two moves").hasSizeGreaterThan(2);
      ChangeRecord insert = moves.get(0)[0];
      assertThat(laneOfMove.get(0)[0]).isEqualTo(laneOf(to1));
      if (identity.equals("DEFAULT")) {
        assertThat(insert.getAfter().getColumns(3).getState())
            .as("the large value was not sent: the sink carried it over")
            .isEqualTo(ColumnState.COLUMN_STATE_UNCHANGED_TOAST);
        assertThat(insert.getBefore().getColumns(0).getText()).isEqualTo("1");
      } else {
        assertThat(insert.getAfter().getColumns(3).getText()).hasSize(102_400);
        assertThat(insert.hasBefore()).isFalse();
      }
      assertThat(records)
          .as("the delete half in tenant 1's lane")
          .anySatisfy(
              r -> {
                assertThat(r.partition()).isEqualTo(laneOf(1));
                assertThat(TrellaraCodec.decodeChunk(r.value()).getChangesList())
                    .anySatisfy(
                        c -> {
                          assertThat(c.getOperation()).isEqualTo(Operation.OPERATION_DELETE);
                          assertThat(c.getBefore().getColumns(0).getText()).isEqualTo("1");
                        });
              });
    }
  }

  private static boolean failed(String source, String sink) {
    return !STACK.rest().status(source).isRunning(1) || !STACK.rest().status(sink).isRunning(2);
  }
}
