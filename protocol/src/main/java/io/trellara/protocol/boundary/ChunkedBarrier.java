package io.trellara.protocol.boundary;

import io.trellara.protocol.SchemaVersions;
import io.trellara.protocol.codec.EncodedMessage;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TransactionEnvelope;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Cuts a whole transaction into strict-chunked-order chunks (partition_id = chunk index), then its
 * manifest and commit marker, each encoded through the one codec. The in-memory form, for
 * transactions that fit in memory, through the same {@link BarrierPlanner} the source streams with.
 */
public final class ChunkedBarrier {

  /** The messages in publication order: chunks, then the manifest, then the commit marker. */
  public record Barrier(
      List<EncodedMessage> chunks, EncodedMessage manifest, EncodedMessage commitMarker) {
    public List<EncodedMessage> inOrder() {
      List<EncodedMessage> all = new ArrayList<>(chunks);
      all.add(manifest);
      all.add(commitMarker);
      return all;
    }
  }

  private ChunkedBarrier() {}

  public static Barrier strictChunked(TransactionEnvelope tx, int maxEventsPerChunk) {
    if (maxEventsPerChunk <= 0) {
      throw new IllegalArgumentException("maxEventsPerChunk must be positive");
    }
    List<SchemaVersion> schemas = tx.getSchemaVersionsList();
    List<EncodedMessage> chunks = new ArrayList<>();
    BarrierPlanner planner =
        BarrierPlanner.strictChunked(
            new BarrierPlanner.TransactionHeader(
                tx.getProtocolVersion(),
                tx.getSourceId(),
                tx.getDatabaseId(),
                tx.getDatasetId(),
                tx.getTransactionId(),
                tx.getBeginLsn(),
                tx.getCommitLsn(),
                tx.getCommitTimestampMs()),
            maxEventsPerChunk,
            Long.MAX_VALUE,
            c -> chunks.add(c.message()));
    for (Object e : mergeByTotalOrder(tx)) {
      if (e instanceof ChangeRecord c) {
        planner.addChange(0, c, referenced(c, schemas));
      } else {
        planner.addDdl(0, (DdlEvent) e);
      }
    }
    BarrierPlanner.Closing closing = planner.finish();
    return new Barrier(chunks, closing.manifest(), closing.commitMarker());
  }

  /** The schema version the change follows; a truncate: one version of each relation it names. */
  private static SchemaVersion[] referenced(ChangeRecord c, List<SchemaVersion> schemas) {
    if (!c.hasTruncate()) {
      SchemaVersion v = SchemaVersions.of(c, schemas);
      return v == null ? new SchemaVersion[0] : new SchemaVersion[] {v};
    }
    return c.getTruncate().getRelationsList().stream()
        .map(
            r ->
                schemas.stream()
                    .filter(s -> SchemaVersions.describes(s, r))
                    .findFirst()
                    .orElse(null))
        .filter(Objects::nonNull)
        .toArray(SchemaVersion[]::new);
  }

  private static List<Object> mergeByTotalOrder(TransactionEnvelope tx) {
    List<Object> all = new ArrayList<>(tx.getChangesCount() + tx.getDdlEventsCount());
    int i = 0;
    int j = 0;
    while (i < tx.getChangesCount() || j < tx.getDdlEventsCount()) {
      boolean takeChange =
          j >= tx.getDdlEventsCount()
              || (i < tx.getChangesCount()
                  && tx.getChanges(i).getTotalOrder() < tx.getDdlEvents(j).getTotalOrder());
      all.add(takeChange ? tx.getChanges(i++) : tx.getDdlEvents(j++));
    }
    return all;
  }
}
