package io.trellara.source.capture;

import io.trellara.protocol.Lsn;
import io.trellara.protocol.ProtocolVersion;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.TransactionEnvelope;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Builds the one {@link TransactionEnvelope} of a committed transaction in strict transaction
 * order: protocol_version 1, the flow identity, transaction_id, begin LSN (when known) and commit
 * LSN in canonical X/X form, the commit timestamp, the schema version of every relation the events
 * reference (each distinct version once, in order of first reference; truncated relations
 * included), the changes and the DDL events. The checksum is left to the codec ({@code
 * TrellaraCodec.encode} validates, checksums, encodes).
 *
 * <p>Refuses with {@link EnvelopeTooLargeException} as soon as the running estimate of the encoded
 * size (the serialized size of each record as it is added, plus field framing) exceeds the
 * configured maximum, so a huge transaction is refused without being held whole.
 */
public final class StrictEnvelopeBuilder {

  /** 1 MiB: Kafka's default max.message.bytes is about that. */
  public static final long DEFAULT_MAX_ENVELOPE_BYTES = 1024L * 1024;

  /**
   * Envelope fields other than the repeated ones (ids, LSNs, timestamp, version, checksum),
   * generously.
   */
  private static final int FIXED_FIELDS_BYTES = 256;

  private final long maxEnvelopeBytes;

  public StrictEnvelopeBuilder(long maxEnvelopeBytes) {
    if (maxEnvelopeBytes <= 0) {
      throw new IllegalArgumentException("maxEnvelopeBytes must be > 0, was " + maxEnvelopeBytes);
    }
    this.maxEnvelopeBytes = maxEnvelopeBytes;
  }

  public long maxEnvelopeBytes() {
    return maxEnvelopeBytes;
  }

  /**
   * @throws EnvelopeTooLargeException when the envelope would exceed the maximum encoded size
   * @throws CaptureException when a change cannot be captured correctly
   */
  public TransactionEnvelope build(CapturedTransaction tx) {
    CaptureIdentity id = tx.identity();
    TransactionEnvelope.Builder envelope =
        TransactionEnvelope.newBuilder()
            .setProtocolVersion(ProtocolVersion.CURRENT)
            .setSourceId(id.sourceId())
            .setDatabaseId(id.databaseId())
            .setDatasetId(id.datasetId())
            .setTransactionId(tx.transactionId())
            .setCommitLsn(tx.commitLsnText())
            .setCommitTimestampMs(tx.commitTimestampMs());
    if (tx.beginLsn() != 0) {
      envelope.setBeginLsn(Lsn.format(tx.beginLsn()));
    }
    Collector collector = new Collector(envelope, tx);
    tx.forEachEvent(collector);
    return envelope.build();
  }

  private final class Collector implements CaptureEventSink {
    private final TransactionEnvelope.Builder envelope;
    private final CapturedTransaction tx;
    private final Map<RelationSchema, Boolean> referenced = new IdentityHashMap<>();
    private long estimate = FIXED_FIELDS_BYTES;
    private long events;

    Collector(TransactionEnvelope.Builder envelope, CapturedTransaction tx) {
      this.envelope = envelope;
      this.tx = tx;
    }

    @Override
    public void onChange(ChangeRecord change, RelationSchema relation) {
      reference(relation);
      envelope.addChanges(change);
      events++;
      grow(change.getSerializedSize());
    }

    @Override
    public void onTruncate(ChangeRecord change, RelationSchema[] relations) {
      for (RelationSchema r : relations) {
        reference(r);
      }
      envelope.addChanges(change);
      events++;
      grow(change.getSerializedSize());
    }

    @Override
    public void onDdl(DdlEvent ddl, RelationSchema[] relations) {
      for (RelationSchema r : relations) {
        reference(r);
      }
      onDdl(ddl);
    }

    @Override
    public void onDdl(DdlEvent ddl) {
      envelope.addDdlEvents(ddl);
      events++;
      grow(ddl.getSerializedSize());
    }

    private void reference(RelationSchema r) {
      if (referenced.putIfAbsent(r, Boolean.TRUE) == null) {
        envelope.addSchemaVersions(r.schemaVersion());
        grow(r.schemaVersion().getSerializedSize());
      }
    }

    /** One repeated element: its bytes plus a tag byte and a length varint (at most 5 bytes). */
    private void grow(int serializedSize) {
      estimate += serializedSize + 1 + varintSize(serializedSize);
      if (estimate > maxEnvelopeBytes) {
        throw new EnvelopeTooLargeException(
            tx.transactionId(), tx.commitLsnText(), events, estimate, maxEnvelopeBytes);
      }
    }
  }

  private static int varintSize(int n) {
    int size = 1;
    while ((n & ~0x7F) != 0) {
      n >>>= 7;
      size++;
    }
    return size;
  }
}
