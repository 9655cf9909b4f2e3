package io.trellara.source.connect;

import io.trellara.protocol.Lsn;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.Snapshots;
import io.trellara.source.kafka.OffsetHeaders;
import io.trellara.source.kafka.SourcePosition;
import io.trellara.source.pg.ServerIdentity;
import io.trellara.source.replication.Outbound;
import io.trellara.source.startup.SourceStartup;
import io.trellara.source.startup.StoredOffset;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Turns the engine's records into Kafka records: envelopes, manifests and markers to the strict
 * topic's one partition, chunks to the strict topic (strict chunked) or to their lane of the
 * partitioned topic, keyed by the transaction boundary key. Only the closing record (envelope or
 * commit marker) moves the source offset, and it repeats that offset in its headers ({@link
 * OffsetHeaders}); the records before it carry the previous transaction's offset (at first, the
 * position the task resumed from), the initial snapshot's records {@code snapshot=running}, and the
 * records held by an online snapshot ({@link Outbound#held()}) the position from before its signal,
 * stamped in their headers too, so a restart never resumes past a transaction Kafka does not wholly
 * hold nor past a signal whose snapshot is not published. No record carries a null offset. Used by
 * the task's poll thread only.
 */
final class TransactionRecords {
  static final String HEADER_COUNTS = "trellara.counts";
  static final String HEADER_BOUNDARY = "trellara.boundary_mode";

  private final Map<String, String> partition;
  private final String sourceId;
  private final String slot;
  private final String strictTopic;
  private final String partitionedTopic;
  private final ServerIdentity server;
  private Supplier<ServerIdentity> newestServer = () -> null;
  private Map<String, Object> lastOffset;
  private SourcePosition lastPosition;
  private Map<String, Object> heldOffset;
  private SourcePosition heldPosition;
  private String runningSnapshotLsn;
  private Map<String, Object> runningOffset;
  private RecordSigning signing = RecordSigning.OFF;

  /**
   * @param resumedFrom the position the task resumed from: what records before its first closing
   *     record carry
   */
  TransactionRecords(
      Map<String, String> partition,
      String sourceId,
      String slot,
      String strictTopic,
      String partitionedTopic,
      ServerIdentity server,
      StoredOffset resumedFrom) {
    this.partition = partition;
    this.sourceId = sourceId;
    this.slot = slot;
    this.strictTopic = strictTopic;
    this.partitionedTopic = partitionedTopic;
    this.server = server;
    this.lastOffset = resumedFrom.toMap();
    this.lastPosition = resumedFrom instanceof StoredOffset.At at ? at.position() : null;
  }

  /**
   * The WAL position Kafka's acknowledgement of {@code o} releases: its end LSN, but none (1, below
   * any position) for a held record, so the slot is not confirmed past an online snapshot's signal
   * before the snapshot is published.
   */
  static long acknowledgedLsn(Outbound o) {
    return o.held() && o.closesTransaction() ? 1 : o.endLsn();
  }

  /** The records of a started source, to its topics. */
  static TransactionRecords of(SourceStartup.Started started, TrellaraSourceConfig config) {
    return new TransactionRecords(
            started.partition(),
            started.settings().sourceId(),
            started.settings().slotName(),
            config.strictTopic(),
            config.partitionedTopic(),
            started.server(),
            started.decision().position())
        .followingServer(started.engine()::server)
        .dataset(started.settings().datasetId())
        .signing(RecordSigning.of(config));
  }

  /**
   * Offsets record the server of the newest replication connection ({@code newest}; while it
   * answers null, the server the task started on): after a promotion the task's offsets name the
   * promoted standby's timeline, so a later start on an old primary back on the old timeline is
   * seen as another timeline, not as the same server.
   */
  TransactionRecords followingServer(Supplier<ServerIdentity> newest) {
    this.newestServer = newest;
    return this;
  }

  /** A record that remembers which transaction it belongs to, for acknowledgement. */
  static final class TransactionRecord extends SourceRecord {
    final long sequence;
    final long commitTimestampMs;

    TransactionRecord(
        Map<String, ?> partition,
        Map<String, ?> offset,
        String topic,
        Integer kafkaPartition,
        String key,
        Object value,
        long timestamp,
        ConnectHeaders headers,
        long sequence) {
      super(
          partition,
          offset,
          topic,
          kafkaPartition,
          Schema.STRING_SCHEMA,
          key,
          null,
          value,
          timestamp,
          headers);
      this.sequence = sequence;
      this.commitTimestampMs = timestamp;
    }
  }

  /** The dataset an offset was written under (a start under another one is refused). */
  private Map<String, Object> withDataset(Map<String, Object> offset) {
    if (datasetId == null) {
      return offset;
    }
    Map<String, Object> m = new java.util.LinkedHashMap<>(offset);
    m.put("dataset_id", datasetId);
    return java.util.Collections.unmodifiableMap(m);
  }

  /** The dataset this task publishes; recorded in every closing record's offset. */
  private String datasetId;

  /** How records are signed (docs/protocol.md, Record authentication). */
  TransactionRecords signing(RecordSigning signing) {
    this.signing = signing;
    return this;
  }

  /** The key id records are signed with, or empty. */
  String signingKeyId() {
    return signing.keyId();
  }

  TransactionRecords dataset(String datasetId) {
    this.datasetId = datasetId;
    return this;
  }

  TransactionRecord record(Outbound o) {
    ConnectHeaders headers = new ConnectHeaders();
    headers.addString(MessageKind.HEADER, o.kind().wireName());
    headers.addString(HEADER_COUNTS, o.counts().render());
    headers.addString(HEADER_BOUNDARY, o.boundaryMode());
    Map<String, ?> offset;
    if (o.held()) {
      // an online snapshot is in progress: the position from before its signal, so that a restart
      // reads the signal again; its stamp also tells the topic's tail to resume there
      if (heldOffset == null) {
        heldOffset = lastOffset;
        heldPosition = lastPosition;
      }
      offset = heldOffset;
      if (heldPosition != null) {
        OffsetHeaders.write(sourceId, slot, heldPosition, headers::addString);
      }
    } else if (o.closesTransaction()) {
      heldOffset = null;
      heldPosition = null;
      ServerIdentity newest = newestServer.get();
      ServerIdentity at = newest == null ? server : newest;
      SourcePosition p =
          new SourcePosition(
              o.key().commitLsn(),
              o.endLsn(),
              o.key().transactionId(),
              at.systemId(),
              at.timeline());
      lastOffset = withDataset(new StoredOffset.At(p).toMap());
      lastPosition = p;
      offset = lastOffset;
      OffsetHeaders.write(sourceId, slot, p, headers::addString);
    } else if (Snapshots.isSnapshot(o.key().transactionId())) {
      // a restart that finds this (and the topic without the snapshot's marker) snapshots again
      offset = running(o.key().commitLsn());
    } else {
      offset = lastOffset;
    }
    // envelopes: the protobuf message, encoded once by TrellaraConverter; the others were encoded
    // by the barrier planner (their checksums are listed in the manifest) and the converter
    // verifies them
    String topic =
        o.destination() == Outbound.Destination.PARTITIONED ? partitionedTopic : strictTopic;
    return new TransactionRecord(
        partition,
        offset,
        topic,
        o.partition(),
        o.key().display(),
        signing.sign(topic, o.partition(), o.value()),
        o.commitTimestampMs(),
        headers,
        o.sequence());
  }

  /** The offset of the snapshot's records before its marker, naming its consistent point. */
  private Map<String, Object> running(String consistentPoint) {
    if (!consistentPoint.equals(runningSnapshotLsn)) {
      Lsn lsn = Lsn.parseOrNull(consistentPoint);
      runningOffset = new StoredOffset.Running(lsn == null ? 0 : lsn.value()).toMap();
      runningSnapshotLsn = consistentPoint;
    }
    return runningOffset;
  }
}
