package io.trellara.source.replication;

import io.trellara.protocol.EventCounts;
import io.trellara.protocol.EventKey;
import io.trellara.protocol.Lsn;
import io.trellara.protocol.ProtocolVersion;
import io.trellara.protocol.Snapshots;
import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.protocol.boundary.BarrierPlanner;
import io.trellara.protocol.boundary.ChunkBoundException;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.source.capture.CaptureEventSink;
import io.trellara.source.capture.CaptureIdentity;
import io.trellara.source.capture.CapturedTransaction;
import io.trellara.source.capture.ChunkTooLargeException;
import io.trellara.source.capture.RelationSchema;
import io.trellara.source.pg.CatalogKeyTypes;
import io.trellara.source.pg.CatalogPrimaryKeys;
import io.trellara.source.routing.OwnershipRouter;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Strict chunked transaction order and partitioned scale mode: each committed transaction is
 * re-read event by event (from memory or its spill file) through the {@link BarrierPlanner}, so its
 * chunks leave for the publisher as they fill and memory holds at most one open chunk per lane;
 * then the manifest and the commit marker go to the strict topic, in commit order. A transaction
 * without events publishes nothing (a relay never publishes an empty barrier). The initial snapshot
 * takes the same {@link Publication} without the assembler: its rows are handed in as they are read
 * ({@link #snapshot}).
 *
 * <p>Partitioned: the {@link OwnershipRouter} picks each change's lane; the pipeline numbers
 * partition_order per lane and, because an emitted move turns one change into two events, renumbers
 * total_order, table_order and the idempotency keys so they stay 1..N.
 */
public final class BarrierPipeline extends AssemblingPipeline {
  private final BoundarySettings boundary;
  private final Consumer<Outbound> out;
  private final OwnershipRouter router;
  private final CaptureIdentity identity;
  private final long maxRecordBytes;
  private final String recordBoundSetting;
  private long sequence;

  /** The setting that bounds a chunked flow's records. */
  static final String CHUNK_MAX_BYTES = "dataset.chunk.max_bytes";

  BarrierPipeline(SourceSettings s, Consumer<Outbound> out) {
    this(s, out, s.boundary().maxChunkBytes(), CHUNK_MAX_BYTES);
  }

  /**
   * @param maxRecordBytes the largest chunk or manifest the flow announces (at least the chunk
   *     bound): an event above the chunk bound travels alone in a chunk up to it
   * @param recordBoundSetting the setting that raises it, named when a record would not fit
   */
  BarrierPipeline(
      SourceSettings s, Consumer<Outbound> out, long maxRecordBytes, String recordBoundSetting) {
    super(s);
    this.maxRecordBytes = maxRecordBytes;
    this.recordBoundSetting = recordBoundSetting;
    this.boundary = s.boundary();
    this.out = out;
    this.identity = new CaptureIdentity(s.sourceId(), s.databaseId(), s.datasetId());
    this.router =
        boundary.partitioned()
            ? new OwnershipRouter(
                boundary.partitionCount(),
                boundary.ownershipKeys(),
                boundary.nullKeyPolicy(),
                boundary.keyChangePolicy(),
                new CatalogKeyTypes(s.endpoint()),
                new CatalogPrimaryKeys(s.endpoint()))
            : null;
  }

  public static Function<Consumer<Outbound>, TransactionPipeline> factory(SourceSettings settings) {
    return out -> new BarrierPipeline(settings, out);
  }

  @Override
  void committed(CapturedTransaction tx) {
    if (tx.eventCount() == 0) {
      return;
    }
    Publication p =
        new Publication(
            tx.transactionId(),
            tx.beginLsn(),
            tx.commitLsnText(),
            tx.commitTimestampMs(),
            tx.endLsn());
    tx.forEachEvent(p.events);
    p.commit();
  }

  /**
   * The initial snapshot's transaction, whose events are handed in as its rows are read (see {@link
   * io.trellara.source.snapshot.SnapshotEvents}): it commits at the slot's consistent point, so its
   * chunks are published as they fill, with no assembly or spill in front.
   */
  public Publication snapshot(long consistentPoint, long timestampMs) {
    return new Publication(
        Snapshots.TRANSACTION_ID,
        consistentPoint,
        Lsn.format(consistentPoint),
        timestampMs,
        consistentPoint);
  }

  /** One transaction being published: its events in total order, then {@link #commit()}. */
  public final class Publication {
    private final long sequence = ++BarrierPipeline.this.sequence;
    private final TransactionBoundaryKey key;
    private final long commitTimestampMs;
    private final long endLsn;
    private final BarrierPlanner planner;
    private final CaptureEventSink events;

    private Publication(
        String transactionId,
        long beginLsn,
        String commitLsn,
        long commitTimestampMs,
        long endLsn) {
      this.key =
          new TransactionBoundaryKey(
              identity.sourceId(), identity.databaseId(), commitLsn, transactionId);
      this.commitTimestampMs = commitTimestampMs;
      this.endLsn = endLsn;
      BarrierPlanner.TransactionHeader header =
          new BarrierPlanner.TransactionHeader(
              ProtocolVersion.CURRENT,
              identity.sourceId(),
              identity.databaseId(),
              identity.datasetId(),
              transactionId,
              beginLsn == 0 ? "" : Lsn.format(beginLsn),
              commitLsn,
              commitTimestampMs);
      String mode = boundary.wireMode();
      Consumer<BarrierPlanner.PlannedChunk> chunks =
          c ->
              out.accept(
                  Outbound.encoded(
                      router == null
                          ? Outbound.Destination.STRICT
                          : Outbound.Destination.PARTITIONED,
                      router == null ? 0 : c.partitionId(),
                      c.message(),
                      key,
                      mode,
                      commitTimestampMs,
                      new EventCounts(c.eventCount() - c.ddlEventCount(), c.ddlEventCount()),
                      sequence,
                      0));
      this.planner =
          router == null
              ? BarrierPlanner.strictChunked(
                  header,
                  boundary.maxEventsPerChunk(),
                  boundary.maxChunkBytes(),
                  maxRecordBytes,
                  chunks)
              : BarrierPlanner.partitioned(
                  header,
                  boundary.partitionCount(),
                  boundary.maxEventsPerChunk(),
                  boundary.maxChunkBytes(),
                  chunks);
      this.events =
          new Bounded(router == null ? new Chunked(planner) : new Partitioned(planner, key), key);
    }

    /** Where the transaction's events go, in total order. */
    public CaptureEventSink events() {
      return events;
    }

    /** Publishes what is left, the manifest and the commit marker; nothing when no event came. */
    public void commit() {
      if (planner.events() == 0) {
        return; // a relay never publishes an empty barrier
      }
      String mode = boundary.wireMode();
      BarrierPlanner.Closing closing;
      try {
        closing = planner.finish();
      } catch (ChunkBoundException e) {
        throw ChunkTooLargeException.of(e, key, "", recordBoundSetting);
      }
      EventCounts total =
          new EventCounts(
              closing.manifestMessage().getGlobalEventCount()
                  - closing.manifestMessage().getDdlEventCount(),
              closing.manifestMessage().getDdlEventCount());
      out.accept(
          Outbound.encoded(
              Outbound.Destination.STRICT,
              0,
              closing.manifest(),
              key,
              mode,
              commitTimestampMs,
              total,
              sequence,
              0));
      out.accept(
          Outbound.encoded(
              Outbound.Destination.STRICT,
              0,
              closing.commitMarker(),
              key,
              mode,
              commitTimestampMs,
              total,
              sequence,
              endLsn));
    }
  }

  private static SchemaVersion[] schemas(RelationSchema[] relations) {
    SchemaVersion[] v = new SchemaVersion[relations.length];
    for (int i = 0; i < v.length; i++) {
      v[i] = relations[i].schemaVersion();
    }
    return v;
  }

  /**
   * Turns the planner's refusal of a record above the bound into the named capture error, with the
   * event as a person reads it and the setting that raises the bound.
   */
  private final class Bounded implements CaptureEventSink {
    private final CaptureEventSink inner;
    private final TransactionBoundaryKey key;

    Bounded(CaptureEventSink inner, TransactionBoundaryKey key) {
      this.inner = inner;
      this.key = key;
    }

    private ChunkTooLargeException refused(ChunkBoundException e, String what) {
      return ChunkTooLargeException.of(e, key, what, recordBoundSetting);
    }

    @Override
    public void onChange(ChangeRecord change, RelationSchema relation) {
      try {
        inner.onChange(change, relation);
      } catch (ChunkBoundException e) {
        throw refused(e, "a change of " + relation.qualifiedName());
      }
    }

    @Override
    public void onTruncate(ChangeRecord change, RelationSchema[] relations) {
      try {
        inner.onTruncate(change, relations);
      } catch (ChunkBoundException e) {
        throw refused(e, "a truncate of " + relations[0].qualifiedName());
      }
    }

    @Override
    public void onDdl(DdlEvent ddl) {
      onDdl(ddl, null);
    }

    @Override
    public void onDdl(DdlEvent ddl, RelationSchema[] relations) {
      try {
        if (relations == null) {
          inner.onDdl(ddl);
        } else {
          inner.onDdl(ddl, relations);
        }
      } catch (ChunkBoundException e) {
        throw refused(e, "a DDL event (" + ddl.getCommandTag() + ")");
      }
    }
  }

  /** Strict chunked: events go out in total order as captured. */
  private record Chunked(BarrierPlanner planner) implements CaptureEventSink {
    @Override
    public void onChange(ChangeRecord change, RelationSchema relation) {
      planner.addChange(0, change, relation.schemaVersion());
    }

    @Override
    public void onTruncate(ChangeRecord change, RelationSchema[] relations) {
      planner.addChange(0, change, schemas(relations));
    }

    @Override
    public void onDdl(DdlEvent ddl) {
      planner.addDdl(0, ddl);
    }

    @Override
    public void onDdl(DdlEvent ddl, RelationSchema[] relations) {
      planner.addDdl(0, ddl, schemas(relations));
    }
  }

  /** Partitioned: routed per ownership key; orders renumbered as events are emitted. */
  private final class Partitioned implements CaptureEventSink {
    private final BarrierPlanner planner;
    private final String keyPrefix;
    private final long[] partitionOrder = new long[boundary.partitionCount()];
    private final Map<RelationId, long[]> tableOrder = new HashMap<>();
    private long totalOrder;
    private SchemaVersion[] current;

    Partitioned(BarrierPlanner planner, TransactionBoundaryKey key) {
      this.planner = planner;
      this.keyPrefix = EventKey.prefix(key.sourceId(), key.commitLsn(), key.transactionId());
    }

    private final OwnershipRouter.Lanes lanes = this::emit;

    private void emit(int lane, ChangeRecord c) {
      long order = ++totalOrder;
      long[] t = tableOrder.computeIfAbsent(c.getRelation(), r -> new long[1]);
      ChangeRecord.Builder b =
          c.toBuilder()
              .setTotalOrder(order)
              .setTableOrder(++t[0])
              .setPartitionOrder(++partitionOrder[lane]);
      if (order != c.getTotalOrder()) {
        b.setIdempotencyKey(keyPrefix + order);
      }
      planner.addChange(lane, b.build(), current);
    }

    @Override
    public void onChange(ChangeRecord change, RelationSchema relation) {
      current = new SchemaVersion[] {relation.schemaVersion()};
      router.route(change, relation, lanes);
    }

    @Override
    public void onTruncate(ChangeRecord change, RelationSchema[] relations) {
      current = schemas(relations);
      emit(OwnershipRouter.ROWLESS_LANE, change);
    }

    @Override
    public void onDdl(DdlEvent ddl) {
      long order = ++totalOrder;
      planner.addDdl(
          OwnershipRouter.ROWLESS_LANE,
          order == ddl.getTotalOrder() ? ddl : ddl.toBuilder().setTotalOrder(order).build());
    }
  }
}
