package io.trellara.protocol.boundary;

import com.google.protobuf.CodedOutputStream;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TransactionManifest;
import java.util.Map;

/**
 * The sizes the {@link BarrierPlanner} counts, as the records will be written: each event, schema
 * version and manifest entry with its field tag and length prefix, a chunk's and a manifest's own
 * fields with their varints at their widest. Also the refusals of what does not fit the bounds.
 */
final class ChunkSizes {
  /** A chunk besides its events and schema versions. */
  final int chunkHeaderBytes;

  /** The manifest besides its entries and affected tables. */
  final int manifestHeaderBytes;

  /** Where a chunk of several events is cut. */
  final long maxChunkBytes;

  /** The largest record: a chunk of one event, or the manifest. */
  final long maxRecordBytes;

  private final String eventKey;

  ChunkSizes(
      BarrierPlanner.TransactionHeader header,
      ManifestBoundaryMode mode,
      TransactionManifest.Builder manifest,
      long maxChunkBytes,
      long maxRecordBytes) {
    this.maxChunkBytes = maxChunkBytes;
    this.maxRecordBytes = maxRecordBytes;
    this.eventKey = header.eventKey();
    this.chunkHeaderBytes =
        identity(PartitionChunk.newBuilder(), header)
            .setBoundaryMode(mode)
            .setPartitionId(-1) // uint32: -1 is its widest varint, as is -1L of a uint64
            .setChunkSequence(-1)
            .setChecksum(-1L)
            .build()
            .getSerializedSize();
    this.manifestHeaderBytes =
        manifest
            .clone()
            .setGlobalEventCount(-1L)
            .setDdlEventCount(-1L)
            .setChecksum(-1L)
            .build()
            .getSerializedSize();
  }

  /** The identity fields every chunk repeats. */
  static PartitionChunk.Builder identity(
      PartitionChunk.Builder chunk, BarrierPlanner.TransactionHeader header) {
    return chunk
        .setProtocolVersion(header.protocolVersion())
        .setSourceId(header.sourceId())
        .setDatabaseId(header.databaseId())
        .setDatasetId(header.datasetId())
        .setTransactionId(header.transactionId())
        .setCommitLsn(header.commitLsn())
        .setBeginLsn(header.beginLsn())
        .setCommitTimestampMs(header.commitTimestampMs());
  }

  static int of(ChangeRecord c) {
    return CodedOutputStream.computeMessageSize(PartitionChunk.CHANGES_FIELD_NUMBER, c);
  }

  static int of(DdlEvent d) {
    return CodedOutputStream.computeMessageSize(PartitionChunk.DDL_EVENTS_FIELD_NUMBER, d);
  }

  static int of(SchemaVersion s) {
    return CodedOutputStream.computeMessageSize(PartitionChunk.SCHEMA_VERSIONS_FIELD_NUMBER, s);
  }

  static int of(ManifestPartition entry) {
    return CodedOutputStream.computeMessageSize(TransactionManifest.PARTITIONS_FIELD_NUMBER, entry);
  }

  /** Bytes the distinct versions of {@code referenced} a chunk does not {@code carry} yet add. */
  static long newSchemaBytes(Map<SchemaVersion, Boolean> carried, SchemaVersion[] referenced) {
    long n = 0;
    for (int i = 0; i < referenced.length; i++) {
      SchemaVersion s = referenced[i];
      boolean repeated = carried.containsKey(s);
      for (int j = 0; j < i && !repeated; j++) {
        repeated = referenced[j] == s;
      }
      n += repeated ? 0 : of(s);
    }
    return n;
  }

  /** An event of {@code size} bytes that needs a chunk of {@code chunkBytes} of its own. */
  ChunkBoundException eventTooLarge(long totalOrder, int size, long chunkBytes) {
    return new ChunkBoundException(
        ChunkBoundException.Subject.EVENT,
        eventKey,
        "total_order " + totalOrder,
        totalOrder,
        chunkBytes,
        maxRecordBytes,
        "the event is "
            + size
            + " bytes, the schema versions it references and the chunk's own fields "
            + (chunkBytes - size));
  }

  ChunkBoundException manifestTooLarge(long bytes, int chunks, int tables) {
    return new ChunkBoundException(
        ChunkBoundException.Subject.MANIFEST,
        eventKey,
        "partitions",
        0,
        bytes,
        maxRecordBytes,
        "the manifest lists " + chunks + " chunks and " + tables + " tables");
  }
}
