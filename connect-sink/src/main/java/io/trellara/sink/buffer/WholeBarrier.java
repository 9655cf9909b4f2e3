package io.trellara.sink.buffer;

import io.trellara.protocol.SchemaVersions;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import io.trellara.protocol.validation.ProtocolViolationException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The fast path for a barrier held whole in memory: a strict-chunked transaction whose chunks,
 * manifest and commit marker all arrived in one batch, or a partitioned one whose every lane chunk
 * this task holds ({@link LaneHolds}). The whole barrier is verified in memory ({@link
 * BarrierVerifier#verify}) and reassembled into the transaction's envelope, which then applies
 * exactly like an envelope (grouped with its neighbours in one target transaction), without staging
 * a byte. Anything the in-memory verification refuses goes the staged way instead, where the same
 * rules stop apply at the same place.
 */
final class WholeBarrier {
  private WholeBarrier() {}

  /**
   * The reassembled envelope, or null when the barrier does not verify (the staged path will say
   * why).
   */
  static TransactionEnvelope assemble(
      TransactionManifest m, TransactionCommitMarker k, List<PartitionChunk> chunks) {
    if (!verifies(m, k, chunks, ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER)) {
      return null;
    }
    TransactionEnvelope.Builder e = header(m, chunks.get(0));
    Set<SchemaVersion> schemas = new HashSet<>();
    long last = 0;
    for (PartitionChunk c : chunks) { // in chunk index order: each chunk continues the total order
      if (c.getChangesCount() + c.getDdlEventsCount() > 0 && firstOrder(c) <= last) {
        return null; // not in order as published: let the staged path merge it
      }
      last = lastOrder(c);
      if (!addSchemas(e, schemas, c)) {
        return null;
      }
      e.addAllChanges(c.getChangesList()).addAllDdlEvents(c.getDdlEventsList());
    }
    return e.build();
  }

  /**
   * A partitioned barrier whose chunks are all held: verified, then its events merged back into
   * total order (each lane holds its own, ascending). Null when it does not verify (the staged path
   * will say why).
   */
  static TransactionEnvelope assembleLanes(
      TransactionManifest m, TransactionCommitMarker k, List<PartitionChunk> chunks) {
    if (!verifies(m, k, chunks, ManifestBoundaryMode.PARTITIONED_SCALE_MODE)) {
      return null;
    }
    TransactionEnvelope.Builder e = header(m, chunks.get(0));
    Set<SchemaVersion> schemas = new HashSet<>();
    List<ChangeRecord> changes = new ArrayList<>();
    List<DdlEvent> ddl = new ArrayList<>();
    for (PartitionChunk c : chunks) {
      if (!addSchemas(e, schemas, c)) {
        return null;
      }
      changes.addAll(c.getChangesList());
      ddl.addAll(c.getDdlEventsList());
    }
    changes.sort((a, b) -> Long.compareUnsigned(a.getTotalOrder(), b.getTotalOrder()));
    ddl.sort((a, b) -> Long.compareUnsigned(a.getTotalOrder(), b.getTotalOrder()));
    return e.addAllChanges(changes).addAllDdlEvents(ddl).build();
  }

  /**
   * Adds the chunk's schema versions the envelope lacks; false when one is a second version of a
   * relation (a DDL inside the transaction): a change that names no fingerprint is unambiguous only
   * in its own chunk, so the staged path applies it chunk by chunk.
   */
  private static boolean addSchemas(
      TransactionEnvelope.Builder e, Set<SchemaVersion> schemas, PartitionChunk c) {
    for (SchemaVersion s : c.getSchemaVersionsList()) {
      if (schemas.add(s)) {
        if (SchemaVersions.count(s.getRelation(), e.getSchemaVersionsList()) > 0) {
          return false;
        }
        e.addSchemaVersions(s);
      }
    }
    return true;
  }

  /**
   * The whole barrier verifies in memory, in {@code mode}; false sends it the staged way, which
   * names the rule.
   */
  private static boolean verifies(
      TransactionManifest m,
      TransactionCommitMarker k,
      List<PartitionChunk> chunks,
      ManifestBoundaryMode mode) {
    if (m.getBoundaryMode() != mode) {
      return false;
    }
    try {
      BarrierVerifier.verify(m, k, chunks);
      return true;
    } catch (ProtocolViolationException e) {
      return false;
    }
  }

  private static TransactionEnvelope.Builder header(TransactionManifest m, PartitionChunk first) {
    return TransactionEnvelope.newBuilder()
        .setProtocolVersion(m.getProtocolVersion())
        .setSourceId(m.getSourceId())
        .setDatabaseId(m.getDatabaseId())
        .setDatasetId(m.getDatasetId())
        .setTransactionId(m.getTransactionId())
        .setBeginLsn(first.getBeginLsn())
        .setCommitLsn(m.getSourceCommitLsn())
        .setCommitTimestampMs(m.getSourceCommitTimestampMs())
        // never received as one message, it has no checksum of its own: it carries the manifest's,
        // which binds every chunk, so its dedup record names the body as a staged apply would
        .setChecksum(m.getChecksum());
  }

  private static long firstOrder(PartitionChunk c) {
    long change = c.getChangesCount() > 0 ? c.getChanges(0).getTotalOrder() : Long.MAX_VALUE;
    long ddl = c.getDdlEventsCount() > 0 ? c.getDdlEvents(0).getTotalOrder() : Long.MAX_VALUE;
    return Math.min(change, ddl);
  }

  private static long lastOrder(PartitionChunk c) {
    long change =
        c.getChangesCount() > 0 ? c.getChanges(c.getChangesCount() - 1).getTotalOrder() : 0;
    long ddl =
        c.getDdlEventsCount() > 0 ? c.getDdlEvents(c.getDdlEventsCount() - 1).getTotalOrder() : 0;
    return Math.max(change, ddl);
  }
}
