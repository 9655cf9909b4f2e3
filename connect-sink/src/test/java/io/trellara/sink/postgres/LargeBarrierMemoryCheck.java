package io.trellara.sink.postgres;

import io.trellara.protocol.EventKey;
import io.trellara.protocol.Lsn;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.ProtocolVersion;
import io.trellara.protocol.SchemaFingerprint;
import io.trellara.protocol.codec.EncodedMessage;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnDefinition;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.protocol.v1.RowImage;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import io.trellara.sink.buffer.Input;
import io.trellara.sink.engine.SinkEngine;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.checkpoint.CheckpointStore;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.session.ConnectionFactory;
import io.trellara.sink.postgres.settings.ApplyOptions;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Not a test: the sink's memory bound, checked by hand. Streams one transaction of N rows (default
 * 5,000,000) as strict chunked chunks and then as partitioned chunks over 6 lanes into an {@link
 * SinkEngine} (in consumer- sized batches, as a task receives them), then applies each barrier,
 * with nothing of the transaction held in this harness. Run at the heap the issue names: {@code
 * java -Xmx256m -cp target/test-classes:target/classes:$(cat target/cp.txt)
 * io.trellara.sink.postgres.LargeBarrierMemoryCheck [rows] [eventsPerChunk]}.
 */
public final class LargeBarrierMemoryCheck {
  private static final RelationId BIG =
      RelationId.newBuilder().setSchema("app").setTable("big").build();
  private static final String FILLER = "x".repeat(100);

  public static void main(String[] args) throws Exception {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 5_000_000;
    int perChunk = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
    try (EmbeddedPostgres pg =
        EmbeddedPostgres.builder()
            .setServerConfig("max_wal_size", "8GB")
            .setServerConfig("fsync", "off")
            .start()) {
      ConnectionFactory f = () -> pg.getPostgresDatabase().getConnection();
      new CheckpointStore(f).createSchema();
      try (Connection c = f.open();
          Statement s = c.createStatement()) {
        s.execute("CREATE SCHEMA app");
        s.execute("CREATE TABLE app.big (id bigint PRIMARY KEY, body text)");
      }
      run(f, rows, perChunk, ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER, 0x1000, 0);
      run(f, rows, perChunk, ManifestBoundaryMode.PARTITIONED_SCALE_MODE, 0x2000, rows);
      try (Connection c = f.open();
          Statement s = c.createStatement();
          var rs =
              s.executeQuery(
                  "SELECT count(*), (SELECT count(*) FROM trellara_sink.staged_chunks)"
                      + " FROM app.big")) {
        rs.next();
        System.out.printf("target rows %,d, staged chunks left %d%n", rs.getLong(1), rs.getLong(2));
      }
    }
    System.out.printf(
        "max heap %,d MiB, largest heap after a collection %,d MiB%n",
        Runtime.getRuntime().maxMemory() >> 20, peakHeap() >> 20);
  }

  private static void run(
      ConnectionFactory f,
      int rows,
      int perChunk,
      ManifestBoundaryMode mode,
      long lsnValue,
      long idBase) {
    int lanes = mode == ManifestBoundaryMode.PARTITIONED_SCALE_MODE ? 6 : 1;
    String lsn = Lsn.format(lsnValue);
    String tx = Long.toString(lsnValue);
    SchemaVersion.Builder shape =
        SchemaVersion.newBuilder()
            .setRelation(BIG)
            .addColumns(
                ColumnDefinition.newBuilder()
                    .setName("id")
                    .setTypeName("bigint")
                    .setTypeModifier(-1)
                    .setKey(true))
            .addColumns(
                ColumnDefinition.newBuilder()
                    .setName("body")
                    .setTypeName("text")
                    .setTypeModifier(-1));
    SchemaVersion schema = shape.setFingerprint(SchemaFingerprint.of(shape)).build();
    TransactionManifest.Builder manifest =
        TransactionManifest.newBuilder()
            .setProtocolVersion(ProtocolVersion.CURRENT)
            .setSourceId("big-src")
            .setDatabaseId("db")
            .setDatasetId("flow")
            .setTransactionId(tx)
            .setSourceCommitLsn(lsn)
            .setSourceCommitTimestampMs(System.currentTimeMillis())
            .setBoundaryMode(mode)
            .setPartitionCount(mode == ManifestBoundaryMode.PARTITIONED_SCALE_MODE ? lanes : 0)
            .setGlobalEventCount(rows);
    long start = System.nanoTime();
    long stagedBytes = 0;
    try (TransactionApplier a =
            new TransactionApplier(
                f, RelationMapper.identity(), ApplyOptions.builder("big").build());
        SinkEngine p = new SinkEngine(a, null)) {
      Feed feed = new Feed();
      List<Input> batch = new ArrayList<>();
      int[] sequence = new int[lanes];
      int chunkIndex = 0;
      // lanes: consecutive total_orders are dealt round robin, so every lane interleaves with the
      // others
      List<List<ChangeRecord>> open = new ArrayList<>();
      for (int l = 0; l < lanes; l++) {
        open.add(new ArrayList<>());
      }
      for (long order = 1; order <= rows; order++) {
        int lane = (int) ((order - 1) % lanes);
        open.get(lane).add(change("big-src", lsn, tx, order, idBase + order));
        boolean last = order > rows - lanes;
        if (open.get(lane).size() == perChunk || last) {
          int id = mode == ManifestBoundaryMode.PARTITIONED_SCALE_MODE ? lane : chunkIndex++;
          int seq = mode == ManifestBoundaryMode.PARTITIONED_SCALE_MODE ? sequence[lane]++ : 0;
          List<ChangeRecord> events = open.get(lane);
          PartitionChunk chunk =
              PartitionChunk.newBuilder()
                  .setProtocolVersion(ProtocolVersion.CURRENT)
                  .setSourceId("big-src")
                  .setDatabaseId("db")
                  .setDatasetId("flow")
                  .setTransactionId(tx)
                  .setCommitLsn(lsn)
                  .setCommitTimestampMs(manifest.getSourceCommitTimestampMs())
                  .setBoundaryMode(mode)
                  .setPartitionId(id)
                  .setChunkSequence(seq)
                  .addSchemaVersions(schema)
                  .addAllChanges(events)
                  .build();
          EncodedMessage encoded = TrellaraCodec.encode(chunk);
          stagedBytes += encoded.bytes().length;
          manifest.addPartitions(
              ManifestPartition.newBuilder()
                  .setId(id)
                  .setChunkSequence(seq)
                  .setEventCount(events.size())
                  .setFirstTotalOrder(events.get(0).getTotalOrder())
                  .setLastTotalOrder(events.get(events.size() - 1).getTotalOrder())
                  .setChecksum(encoded.checksum()));
          TopicPartitionKey tp =
              mode == ManifestBoundaryMode.PARTITIONED_SCALE_MODE
                  ? new TopicPartitionKey(Feed.LANES, lane)
                  : new TopicPartitionKey(Feed.STRICT, 0);
          batch.add(feed.input(tp, MessageKind.CHUNK, encoded.bytes(), "big"));
          open.set(lane, new ArrayList<>());
          if (batch.size() == 8) { // about what one poll hands a task
            p.accept(batch);
            batch = new ArrayList<>();
          }
        }
      }
      p.accept(batch);
      long staged = System.nanoTime();
      EncodedMessage m = TrellaraCodec.encode(manifest.build());
      TransactionManifest withChecksum = manifest.setChecksum(m.checksum()).build();
      TransactionCommitMarker marker =
          TransactionCommitMarker.newBuilder()
              .setProtocolVersion(ProtocolVersion.CURRENT)
              .setSourceId("big-src")
              .setDatabaseId("db")
              .setDatasetId("flow")
              .setTransactionId(tx)
              .setSourceCommitLsn(lsn)
              .setSourceCommitTimestampMs(withChecksum.getSourceCommitTimestampMs())
              .setGlobalEventCount(rows)
              .setParticipatingPartitionCount(BarrierVerifier.participatingPartitions(withChecksum))
              .setManifestChecksum(m.checksum())
              .build();
      TopicPartitionKey strict = new TopicPartitionKey(Feed.STRICT, 0);
      p.accept(
          List.of(
              feed.input(strict, MessageKind.MANIFEST, m.bytes(), "big"),
              feed.input(
                  strict, MessageKind.COMMIT_MARKER, TrellaraCodec.encode(marker).bytes(), "big")));
      long applied = System.nanoTime();
      System.out.printf(
          "%s: %,d rows in %d chunks (%,d MiB staged): staged in %.1f s, applied in %.1f s;"
              + " barriers applied %d%n",
          mode,
          rows,
          withChecksum.getPartitionsCount(),
          stagedBytes >> 20,
          (staged - start) / 1e9,
          (applied - staged) / 1e9,
          a.metrics().barriersApplied());
    }
  }

  private static ChangeRecord change(String source, String lsn, String tx, long order, long id) {
    return ChangeRecord.newBuilder()
        .setTransactionId(tx)
        .setTotalOrder(order)
        .setTableOrder(order)
        .setRelation(BIG)
        .setOperation(Operation.OPERATION_INSERT)
        .setReplicaIdentity(ReplicaIdentity.REPLICA_IDENTITY_DEFAULT)
        .setIdempotencyKey(EventKey.of(source, lsn, tx, order))
        .setAfter(
            RowImage.newBuilder()
                .addColumns(
                    ColumnValue.newBuilder()
                        .setState(ColumnState.COLUMN_STATE_VALUE)
                        .setText(Long.toString(id)))
                .addColumns(
                    ColumnValue.newBuilder()
                        .setState(ColumnState.COLUMN_STATE_VALUE)
                        .setText(FILLER)))
        .build();
  }

  /**
   * The largest heap in use right after a collection (the live set), sampled while the check runs.
   */
  private static volatile long liveAfterGc;

  private static long peakHeap() {
    return liveAfterGc;
  }

  static {
    Thread sampler =
        new Thread(
            () -> {
              while (true) {
                long live = 0;
                for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                  if (pool.getType() == MemoryType.HEAP && pool.getCollectionUsage() != null) {
                    live += pool.getCollectionUsage().getUsed();
                  }
                }
                liveAfterGc = Math.max(liveAfterGc, live);
                try {
                  Thread.sleep(20);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "live-set-sampler");
    sampler.setDaemon(true);
    sampler.start();
  }
}
