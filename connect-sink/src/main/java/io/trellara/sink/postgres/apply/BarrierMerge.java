package io.trellara.sink.postgres.apply;

import static io.trellara.protocol.validation.ProtocolRule.DUPLICATE_TOTAL_ORDER;
import static io.trellara.protocol.validation.ProtocolRule.EMPTY_BARRIER;
import static io.trellara.protocol.validation.ProtocolRule.EVENT_COUNT_MISMATCH;
import static io.trellara.protocol.validation.ProtocolRule.TOTAL_ORDER_NOT_ASCENDING;

import io.trellara.protocol.EventKey;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import io.trellara.protocol.validation.ProtocolViolationException;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Rebuilds source order from the chunks of one barrier: a k-way merge by total_order that opens a
 * chunk only when the merge reaches its manifest-listed first_total_order and drops it once it is
 * exhausted. Each lane's chunks cover ascending, disjoint ranges, so at most one chunk per lane is
 * held at a time (one in strict chunked order), whatever the size of the transaction; chunks whose
 * ranges overlap are simply held together.
 *
 * <p>Every chunk is verified against the manifest when it is opened ({@link
 * BarrierVerifier#verifyChunk}: transaction id, identity, listed, checksum, event count,
 * total_order range). The merge itself checks that no total_order repeats across chunks, changes
 * and DDL events ({@code DUPLICATE_TOTAL_ORDER}) and that exactly {@code global_event_count} events
 * came out ({@code EVENT_COUNT_MISMATCH}); with every order inside 1..N that means the events are
 * exactly 1..N.
 */
public final class BarrierMerge {

  /** Reads and decodes (verifying the checksum) the chunk a manifest entry lists. */
  @FunctionalInterface
  public interface ChunkReader {
    PartitionChunk read(ManifestPartition entry) throws SQLException;
  }

  /** Receives the events in total order. */
  public interface EventSink {
    void change(ChangeRecord change, List<SchemaVersion> schemas) throws SQLException;

    void ddl(DdlEvent ddl) throws SQLException;
  }

  private long changes;
  private long ddlEvents;
  private int chunksRead;
  private int peakOpenChunks;

  public long changes() {
    return changes;
  }

  public long ddlEvents() {
    return ddlEvents;
  }

  public int chunksRead() {
    return chunksRead;
  }

  /** The most chunks held at once: the memory bound, in chunks. */
  public int peakOpenChunks() {
    return peakOpenChunks;
  }

  public void run(TransactionManifest m, ChunkReader reader, EventSink sink) throws SQLException {
    String txKey =
        EventKey.transaction(m.getSourceId(), m.getSourceCommitLsn(), m.getTransactionId());
    if (m.getPartitionsCount() == 0 || m.getGlobalEventCount() == 0) {
      throw new ProtocolViolationException(
          EMPTY_BARRIER, "partitions", txKey, "no chunk or no event");
    }
    PriorityQueue<ManifestPartition> pending =
        new PriorityQueue<>(
            Math.max(1, m.getPartitionsCount()),
            Comparator.comparing(ManifestPartition::getFirstTotalOrder, Long::compareUnsigned));
    pending.addAll(m.getPartitionsList());
    PriorityQueue<Cursor> open =
        new PriorityQueue<>(Comparator.comparing(Cursor::head, Long::compareUnsigned));
    long last = 0;
    String lastChunk = null;
    boolean lastDdl = false;
    int lastIndex = -1;
    long emitted = 0;
    while (true) {
      // before emitting order x, every chunk whose range starts at or below x is open
      while (!pending.isEmpty()
          && (open.isEmpty()
              || Long.compareUnsigned(pending.peek().getFirstTotalOrder(), open.peek().head())
                  <= 0)) {
        ManifestPartition entry = pending.poll();
        PartitionChunk chunk = reader.read(entry);
        BarrierVerifier.verifyChunk(m, chunk);
        chunksRead++;
        open.add(new Cursor(chunk));
        peakOpenChunks = Math.max(peakOpenChunks, open.size());
      }
      Cursor c = open.poll();
      if (c == null) {
        break;
      }
      long order = c.head();
      boolean ddl = c.isDdl();
      Cursor twin = open.peek();
      if (twin != null && twin.head() == order) { // caught before either event is written
        boolean twinDdl = twin.isDdl();
        throw new ProtocolViolationException(
            DUPLICATE_TOTAL_ORDER,
            c.name() + (ddl ? " ddl_events[" + c.ddl : " changes[" + c.change) + "].total_order",
            EventKey.of(m.getSourceId(), m.getSourceCommitLsn(), m.getTransactionId(), order),
            "total_order "
                + Long.toUnsignedString(order)
                + " is used by "
                + describe(c.name(), ddl, ddl ? c.ddl : c.change)
                + " and by "
                + describe(twin.name(), twinDdl, twinDdl ? twin.ddl : twin.change));
      }
      if (emitted > 0 && Long.compareUnsigned(order, last) <= 0) {
        boolean repeat = order == last;
        throw new ProtocolViolationException(
            repeat ? DUPLICATE_TOTAL_ORDER : TOTAL_ORDER_NOT_ASCENDING,
            c.name() + (ddl ? " ddl_events[" + c.ddl : " changes[" + c.change) + "].total_order",
            EventKey.of(m.getSourceId(), m.getSourceCommitLsn(), m.getTransactionId(), order),
            "total_order "
                + Long.toUnsignedString(order)
                + (repeat
                    ? " is used by "
                        + describe(c.name(), ddl, ddl ? c.ddl : c.change)
                        + " and by "
                        + describe(lastChunk, lastDdl, lastIndex)
                    : " follows " + Long.toUnsignedString(last)));
      }
      if (ddl) {
        sink.ddl(c.chunk.getDdlEvents(c.ddl));
        ddlEvents++;
        lastIndex = c.ddl++;
      } else {
        sink.change(c.chunk.getChanges(c.change), c.chunk.getSchemaVersionsList());
        changes++;
        lastIndex = c.change++;
      }
      last = order;
      lastDdl = ddl;
      lastChunk = c.name();
      emitted++;
      if (c.hasNext()) {
        open.add(c);
      }
    }
    if (emitted != m.getGlobalEventCount()) {
      throw new ProtocolViolationException(
          EVENT_COUNT_MISMATCH,
          "global_event_count",
          txKey,
          "the chunks hold "
              + emitted
              + " events, global_event_count is "
              + Long.toUnsignedString(m.getGlobalEventCount()));
    }
    if (ddlEvents
        != m.getDdlEventCount()) { // inside the open target transaction: nothing of it commits
      throw new ProtocolViolationException(
          EVENT_COUNT_MISMATCH,
          "ddl_event_count",
          txKey,
          "the chunks hold "
              + ddlEvents
              + " DDL events, ddl_event_count is "
              + Long.toUnsignedString(m.getDdlEventCount()));
    }
  }

  private static String describe(String chunk, boolean ddl, int index) {
    return chunk + (ddl ? " ddl_events[" : " changes[") + index + "]";
  }

  /**
   * Position in one chunk: its changes and DDL events merged (each list ascends, they share no
   * order).
   */
  private static final class Cursor {
    final PartitionChunk chunk;
    private String name;
    int change;
    int ddl;

    Cursor(PartitionChunk chunk) {
      this.chunk = chunk;
    }

    boolean hasNext() {
      return change < chunk.getChangesCount() || ddl < chunk.getDdlEventsCount();
    }

    boolean isDdl() {
      if (change >= chunk.getChangesCount()) {
        return true;
      }
      return ddl < chunk.getDdlEventsCount()
          && Long.compareUnsigned(
                  chunk.getDdlEvents(ddl).getTotalOrder(), chunk.getChanges(change).getTotalOrder())
              < 0;
    }

    long head() {
      return isDdl()
          ? chunk.getDdlEvents(ddl).getTotalOrder()
          : chunk.getChanges(change).getTotalOrder();
    }

    /** {@code chunk p/s}: built once per chunk. */
    String name() {
      if (name == null) {
        name =
            "chunk "
                + Integer.toUnsignedString(chunk.getPartitionId())
                + "/"
                + Integer.toUnsignedString(chunk.getChunkSequence());
      }
      return name;
    }
  }
}
