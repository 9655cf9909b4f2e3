package io.trellara.sink.postgres.apply;

import io.trellara.protocol.SchemaVersions;
import io.trellara.protocol.Snapshots;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.postgres.checkpoint.AppliedRecords;
import io.trellara.sink.postgres.names.QualifiedName;
import io.trellara.sink.postgres.schema.DdlApplier;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.schema.SchemaEvolution;
import io.trellara.sink.postgres.schema.TargetTable;
import io.trellara.sink.postgres.schema.TargetTables;
import io.trellara.sink.postgres.session.TargetSession;
import io.trellara.sink.postgres.settings.ApplyOptions;
import io.trellara.sink.postgres.snapshot.SnapshotLoad;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Writes the events of one or more source transactions into the open target transaction, in source
 * order. Consecutive row changes of one relation, operation and shape are collected into a run
 * ({@link PendingRuns}) and written set-based ({@link RunWriter}): COPY for long insert runs
 * ({@link InsertCopy}), multi-row INSERT otherwise, JDBC batches for updates and deletes. The run
 * of a self-contained table is set aside while another such table's rows come ({@link
 * RunsSetAside}), so each table's rows of a group are batched; each table's own order is kept.
 * Before a table's first run of a schema version the table is prepared for it ({@link
 * SchemaEvolution}); truncates ({@link TruncateWriter}) and DDL events ({@link DdlApplier}) take
 * their place after every run before them. Counts are kept locally and published only after the
 * commit.
 *
 * <p>Events arrive whole ({@link #write(TransactionEnvelope)}) or one at a time ({@link #begin},
 * then {@link #change} and {@link #ddl} in total order, as a barrier's merge produces them). A run
 * is written once it holds {@value #MAX_RUN_ROWS} rows or about {@value #MAX_RUN_BYTES} bytes of
 * row images, so the writer holds a bounded number of changes whatever the size of the transaction:
 * splitting a run into consecutive statements in the same order changes nothing observable.
 */
public final class ChangeWriter implements io.trellara.sink.postgres.snapshot.RowWriter {
  /** A run is written at this many rows... */
  public static final int MAX_RUN_ROWS = 20_000;

  /** ...or at this many bytes of encoded row changes, whichever comes first. */
  public static final int MAX_RUN_BYTES = 4 << 20;

  private final TargetSession session;
  private final RelationMapper mapper;
  private final TargetTables tables;
  private final SchemaEvolution evolution;
  private final DdlApplier ddl;
  private final SnapshotLoad snapshot;
  private final RunWriter runWriter;
  private final PendingRuns runs;
  private final TruncateWriter truncates;
  private final MoveCarryOver moves;

  /** The change written last in this transaction (null after a DDL event): a move's delete half. */
  private ChangeRecord previous;

  private String sourceId;
  private String datasetId;
  private String commitLsn;
  private String transactionId;
  private RelationId lastSource;
  private QualifiedName lastTarget;
  private List<SchemaVersion> lastSchemas;
  private SchemaVersion lastVersion;
  private String lastFingerprint;

  public ChangeWriter(TargetSession session, RelationMapper mapper, ApplyOptions options) {
    this.session = session;
    this.mapper = mapper;
    this.tables = new TargetTables(session, mapper, options);
    this.evolution = new SchemaEvolution(session, tables, options);
    this.ddl = new DdlApplier(session, mapper, options);
    this.snapshot = new SnapshotLoad(session, options.snapshotTarget());
    this.runWriter = new RunWriter(session, options, snapshot);
    this.runs = new PendingRuns(runWriter);
    this.truncates = new TruncateWriter(session, mapper, tables);
    this.moves = new MoveCarryOver(session, runWriter);
  }

  /**
   * Reads what an initial snapshot in {@code e} must know of the target before its group records
   * anything ({@link AppliedRecords#claim}): whether its flow fed this target before ({@link
   * SnapshotLoad}).
   */
  public void beforeClaim(TransactionEnvelope e) throws SQLException {
    if (Snapshots.isSnapshot(e.getTransactionId())) {
      snapshot.flowApplied(e.getSourceId(), e.getDatasetId());
    }
  }

  /**
   * Names the transaction whose events follow (its flow for schema evolution, its identity for DDL
   * event keys); the run may continue across transactions.
   */
  public void begin(String sourceId, String datasetId, String commitLsn, String transactionId) {
    this.sourceId = sourceId;
    this.datasetId = datasetId;
    this.commitLsn = commitLsn;
    this.transactionId = transactionId;
    this.previous = null;
    snapshot.begin(sourceId, datasetId, commitLsn, transactionId);
  }

  /**
   * Writes every change and DDL event of {@code e} in total order (the run may continue into the
   * next).
   */
  public void write(TransactionEnvelope e) throws SQLException {
    begin(e.getSourceId(), e.getDatasetId(), e.getCommitLsn(), e.getTransactionId());
    write(e.getSchemaVersionsList(), e.getChangesList(), e.getDdlEventsList());
  }

  /**
   * Writes changes and DDL events of the transaction named by {@link #begin} in total order ({@code
   * schemas}: the schema versions of the envelope or chunk that carries them).
   */
  @Override
  public void write(List<SchemaVersion> schemas, List<ChangeRecord> changes, List<DdlEvent> ddl)
      throws SQLException {
    if (!ascending(changes)) {
      changes = new ArrayList<>(changes);
      changes.sort(Comparator.comparingLong(ChangeRecord::getTotalOrder));
    }
    if (ddl.size() > 1) {
      ddl = new ArrayList<>(ddl);
      ddl.sort(Comparator.comparingLong(DdlEvent::getTotalOrder));
    }
    int d = 0;
    for (ChangeRecord c : changes) {
      while (d < ddl.size()
          && Long.compareUnsigned(ddl.get(d).getTotalOrder(), c.getTotalOrder()) < 0) {
        ddl(ddl.get(d++));
      }
      change(c, schemas);
    }
    while (d < ddl.size()) {
      ddl(ddl.get(d++));
    }
    if (!ddl.isEmpty()) {
      evolveAnnounced(schemas, changes, ddl);
    }
  }

  /**
   * Prepares the tables of the message's DDL events for the schema versions no row change of the
   * message follows: the shape a DDL statement left its table in, which the source carries with the
   * DDL event (docs/protocol.md, "Schema versions from DDL"), so an {@code ADD COLUMN} reaches the
   * target in its own transaction rather than at the table's next row. Per relation the last such
   * version in list order is the latest shape (versions are listed in order of first reference); a
   * row change of a later shape would reference a later version. A relation this sink does not
   * write is passed over, as its DDL event is, and so is a table the target does not have: it is
   * created (or refused) at its first row, as before.
   */
  private void evolveAnnounced(
      List<SchemaVersion> schemas, List<ChangeRecord> changes, List<DdlEvent> ddl)
      throws SQLException {
    java.util.Map<RelationId, SchemaVersion> latest = new java.util.LinkedHashMap<>();
    java.util.Map<RelationId, String> keys = new java.util.HashMap<>();
    for (DdlEvent d : ddl) {
      RelationId r = d.getRelation();
      if (!r.getTable().isEmpty()) {
        keys.put(r.toBuilder().clearSourceOid().build(), envelopeKey(d.getTotalOrder()));
      }
    }
    if (keys.isEmpty()) {
      return;
    }
    java.util.Set<SchemaVersion> followed =
        java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    for (ChangeRecord c : changes) {
      if (c.getOperation() != Operation.OPERATION_TRUNCATE) {
        SchemaVersion v = SchemaVersions.of(c, schemas);
        if (v != null) {
          followed.add(v);
        }
      }
    }
    for (SchemaVersion v : schemas) {
      RelationId r = v.getRelation().toBuilder().clearSourceOid().build();
      if (keys.containsKey(r) && !followed.contains(v)) {
        latest.put(r, v);
      } else if (followed.contains(v)) {
        latest.remove(r); // rows of a later-listed version follow it: they prepared the table
      }
    }
    for (java.util.Map.Entry<RelationId, SchemaVersion> e : latest.entrySet()) {
      String key = keys.get(e.getKey());
      QualifiedName target;
      try {
        target = mapper.target(e.getKey(), key);
      } catch (ApplyException notWritten) {
        if (notWritten.reason() != ApplyException.Reason.RELATION_REFUSED) {
          throw notWritten;
        }
        continue;
      }
      if (tables.describe(target) == null) {
        continue; // not on the target (yet): created, or refused, at the table's first row
      }
      flush();
      prepared(target, e.getValue(), key);
    }
    lastSource = null;
  }

  private static boolean ascending(List<ChangeRecord> changes) {
    long prev = 0;
    for (ChangeRecord c : changes) {
      if (Long.compareUnsigned(c.getTotalOrder(), prev) <= 0) {
        return false;
      }
      prev = c.getTotalOrder();
    }
    return true;
  }

  /**
   * Writes one row change (after every event of lower total order of its transaction); {@code
   * schemas} are the schema versions of the envelope or chunk that carries it. When the change's
   * schema version is not the one its target table was last prepared for, the run is written and
   * the table is prepared first (see {@link SchemaEvolution}).
   */
  public void change(ChangeRecord c, List<SchemaVersion> schemas) throws SQLException {
    ChangeRecord prior = previous;
    previous = c;
    if (c.getOperation() == Operation.OPERATION_TRUNCATE) {
      flush();
      truncates.write(c, schemas);
      return;
    }
    QualifiedName target = target(c.getRelation(), c.getIdempotencyKey());
    SchemaVersion version = versionOf(c, schemas);
    if (MoveCarryOver.isMovedInsert(c)) {
      c = carriedOver(prior, c, target, version);
    }
    if (runs.continueRun(target, version, c)) {
      return;
    }
    // the run in hand ends: set aside when its table and the next one are self-contained, else
    // every run is written
    TargetTable next = tables.describe(target);
    if (runs.endRunBefore(target, next != null && next.selfContained(), version, c)) {
      return;
    }
    TargetTable table = prepared(target, version, c.getIdempotencyKey());
    snapshot.prepare(table, sourceId, datasetId, c.getIdempotencyKey());
    runs.startRun(layout(table, version, c.getIdempotencyKey()).shapeOf(c), version, c);
  }

  /** A move's insert half completed from the row its delete half, still unwritten, removes. */
  private ChangeRecord carriedOver(
      ChangeRecord delete, ChangeRecord insert, QualifiedName target, SchemaVersion version)
      throws SQLException {
    if (!MoveCarryOver.paired(delete, insert) || !runs.takeBackLast(delete)) {
      throw MoveCarryOver.unpaired(insert, target.quoted());
    }
    flush();
    TargetTable table = prepared(target, version, insert.getIdempotencyKey());
    RowLayout layout = layout(table, version, insert.getIdempotencyKey());
    return moves.carryOver(layout.shapeOf(delete), layout, delete, insert);
  }

  /**
   * How {@code version}'s positional rows map onto {@code table}: computed once per version and
   * description.
   */
  private RowLayout layout(TargetTable table, SchemaVersion version, String eventKey) {
    RowLayout cached = session.cache(ShapeCache.class, ShapeCache::new).layouts.get(table.name());
    RowLayout layout = RowLayout.of(cached, version, table, table.name().quoted(), eventKey);
    if (layout != cached) {
      session.cache(ShapeCache.class, ShapeCache::new).layouts.put(table.name(), layout);
    }
    return layout;
  }

  /** The target table ready for rows of {@code version}. */
  private TargetTable prepared(QualifiedName target, SchemaVersion version, String eventKey)
      throws SQLException {
    String fingerprint = version == null ? "" : version.getFingerprint();
    if (fingerprint.equals(
        session.cache(ShapeCache.class, ShapeCache::new).preparedFingerprints.get(target))) {
      return tables.ensure(target, version, eventKey); // described once per session
    }
    TargetTable t = evolution.prepare(target, version, sourceId, datasetId, eventKey);
    session.cache(ShapeCache.class, ShapeCache::new).preparedFingerprints.put(target, fingerprint);
    return t;
  }

  /**
   * The schema version {@code c}'s row images follow ({@link SchemaVersions#of}; the last lookup is
   * remembered: changes of one relation cluster). Row images are positional, so a change without
   * one cannot be written.
   */
  private SchemaVersion versionOf(ChangeRecord c, List<SchemaVersion> schemas) {
    if (schemas == lastSchemas
        && lastVersion != null
        && c.getSchemaFingerprint().equals(lastFingerprint)
        && SchemaVersions.describes(lastVersion, c.getRelation())) {
      return lastVersion;
    }
    SchemaVersion v = SchemaVersions.of(c, schemas);
    if (v == null) {
      throw new ApplyException(
          ApplyException.Reason.UNSUPPORTED_CHANGE,
          c.getRelation().getSchema() + "." + c.getRelation().getTable(),
          c.getIdempotencyKey(),
          SchemaVersions.whyMissing(c, schemas) + "; its row images cannot be mapped to columns");
    }
    lastSchemas = schemas;
    lastVersion = v;
    lastFingerprint = c.getSchemaFingerprint();
    return v;
  }

  private QualifiedName target(RelationId source, String eventKey) {
    if (source != lastSource && !source.equals(lastSource)) {
      lastTarget = mapper.target(source, eventKey);
      lastSource = source;
    }
    return lastTarget;
  }

  /**
   * Writes the pending run and ends an open COPY: after this the session can run other statements
   * (the next table's, the dedup and progress records, COMMIT).
   */
  @Override
  public void flush() throws SQLException {
    runs.writeAll();
    runWriter.endCopy();
  }

  /**
   * Handles one DDL event at its place in the transaction (after every event of lower total order).
   */
  public void ddl(DdlEvent d) throws SQLException {
    previous = null;
    flush();
    if (ddl.apply(d, envelopeKey(d.getTotalOrder()))) {
      lastSource = null; // statements ran: mapping checks and table descriptions start again
    }
  }

  private String envelopeKey(long totalOrder) {
    return io.trellara.protocol.EventKey.of(sourceId, commitLsn, transactionId, totalOrder);
  }

  // ---- counts, published by the applier once the transaction committed -----------------------

  public long inserted() {
    return runWriter.inserted;
  }

  public long updated() {
    return runWriter.updated;
  }

  public long deleted() {
    return runWriter.deleted;
  }

  public long truncates() {
    return truncates.truncates;
  }

  public long missingRowsIgnored() {
    return runWriter.missingRowsIgnored;
  }

  /** The longest run written (rows), for tests of the memory bound. */
  public int longestRun() {
    return runs.longestRun;
  }

  public long ddlReplayed() {
    return ddl.replayed;
  }

  public long ddlSkipped() {
    return ddl.skipped;
  }

  public long schemaChanges() {
    return evolution.changes;
  }
}
