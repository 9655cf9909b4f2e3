package io.trellara.sink.postgres.apply;

import io.trellara.protocol.SchemaVersions;
import io.trellara.protocol.Snapshots;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.Operation;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.RowImage;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TruncateSpec;
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
import io.trellara.sink.postgres.settings.InsertConflictPolicy;
import io.trellara.sink.postgres.settings.MissingRowPolicy;
import io.trellara.sink.postgres.snapshot.SnapshotLoad;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Writes the events of one or more source transactions into the open target transaction, in source
 * order. Consecutive row changes of one relation, operation and shape are collected into a run and
 * written set-based: COPY for long insert runs ({@link InsertCopy}), multi-row INSERT otherwise,
 * JDBC batches for updates and deletes. The run of a self-contained table is set aside while
 * another such table's rows come ({@link RunsSetAside}), so each table's rows of a group are
 * batched; each table's own order is kept. Counts are kept locally and published only after the
 * commit.
 *
 * <p>Events arrive whole ({@link #write(TransactionEnvelope)}) or one at a time ({@link #begin},
 * then {@link #change} and {@link #ddl} in total order, as a barrier's merge produces them). A run
 * is written once it holds {@value #MAX_RUN_ROWS} rows or about {@value #MAX_RUN_BYTES} bytes of
 * row images, so the writer holds a bounded number of changes whatever the size of the transaction:
 * splitting a run into consecutive statements in the same order changes nothing observable.
 */
public final class ChangeWriter implements io.trellara.sink.postgres.snapshot.RowWriter {
  /** Rows per multi-row INSERT statement (bounded by the 32767 bind parameters of a statement). */
  private static final int MAX_INSERT_ROWS = 256;

  private static final int MAX_PARAMETERS = 32_767;

  /** A run is written at this many rows... */
  public static final int MAX_RUN_ROWS = 20_000;

  /** ...or at this many bytes of encoded row changes, whichever comes first. */
  public static final int MAX_RUN_BYTES = 4 << 20;

  private final TargetSession session;
  private final RelationMapper mapper;
  private final ApplyOptions options;
  private final TargetTables tables;
  private final SchemaEvolution evolution;
  private final DdlApplier ddl;
  private final InsertCopy insertCopy;
  private final SnapshotLoad snapshot;

  /** Runs of self-contained tables set aside while other tables' rows come. */
  private final RunsSetAside aside = new RunsSetAside();

  private List<ChangeRecord> run = new ArrayList<>();
  private long runBytes;
  private RowShape shape;

  /** The schema version the current run's rows were prepared for. */
  private SchemaVersion shapeVersion;

  private String sourceId;
  private String datasetId;
  private String commitLsn;
  private String transactionId;
  private RelationId lastSource;
  private QualifiedName lastTarget;
  private List<SchemaVersion> lastSchemas;
  private SchemaVersion lastVersion;
  private String lastFingerprint;

  public long inserted;
  public long updated;
  public long deleted;
  public long truncates;
  public long missingRowsIgnored;

  /** The longest run written (rows), for tests of the memory bound. */
  public int longestRun;

  public ChangeWriter(TargetSession session, RelationMapper mapper, ApplyOptions options) {
    this.session = session;
    this.mapper = mapper;
    this.options = options;
    this.tables = new TargetTables(session, options.createMissingTables());
    this.evolution = new SchemaEvolution(session, tables, options);
    this.ddl = new DdlApplier(session, mapper, options);
    this.snapshot = new SnapshotLoad(session, options.snapshotTarget());
    this.insertCopy = new InsertCopy(session);
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
    if (c.getOperation() == Operation.OPERATION_TRUNCATE) {
      flush();
      truncate(c, schemas);
      return;
    }
    QualifiedName target = target(c.getRelation(), c.getIdempotencyKey());
    SchemaVersion version = versionOf(c, schemas);
    if (shape != null
        && shape.target.equals(target)
        && sameVersion(version, shapeVersion)
        && shape.matches(c)) {
      addToRun(c);
      return;
    }
    // the run in hand ends: set it aside when its table and the next one are self-contained, else
    // write all
    TargetTable next = tables.describe(target);
    boolean commutes = next != null && next.selfContained();
    if (!commutes || shape != null && !(shape.selfContained && setAside())) {
      writeAll();
    }
    RunsSetAside.Run earlier = aside.take(target);
    if (earlier != null) {
      takeBack(earlier);
      if (sameVersion(version, shapeVersion) && shape.matches(c)) {
        addToRun(c);
        return;
      }
      writeRun(); // the table's earlier rows go first: each table's own order is kept
    }
    TargetTable table = prepared(target, version, c.getIdempotencyKey());
    snapshot.prepare(target, sourceId, datasetId, c.getIdempotencyKey());
    shape = layout(table, version, c.getIdempotencyKey()).shapeOf(c);
    shapeVersion = version;
    add(c);
  }

  /**
   * Adds {@code c} to the run in hand, writing the run first when it is full (the same shape
   * continues).
   */
  private void addToRun(ChangeRecord c) throws SQLException {
    if (run.size() >= MAX_RUN_ROWS || runBytes >= MAX_RUN_BYTES) {
      RowShape same = shape;
      SchemaVersion sameVersion = shapeVersion;
      writeRun(); // the run is full: write it (a COPY stays open) and continue with the same shape
      shape = same;
      shapeVersion = sameVersion;
    }
    add(c);
  }

  /** Sets the run in hand aside ({@link RunsSetAside}); false when the runs set aside are full. */
  private boolean setAside() {
    if (!aside.offer(new RunsSetAside.Run(shape, shapeVersion, run, runBytes))) {
      return false;
    }
    clearRun();
    return true;
  }

  private void takeBack(RunsSetAside.Run r) {
    run = r.rows();
    runBytes = r.bytes();
    shape = r.shape();
    shapeVersion = r.version();
  }

  /** The run in hand now belongs elsewhere: start a new one. */
  private void clearRun() {
    run = new ArrayList<>();
    runBytes = 0;
    shape = null;
    shapeVersion = null;
  }

  /** Writes every run set aside, in the order they were set aside, and then the run in hand. */
  private void writeAll() throws SQLException {
    if (shape != null && !aside.isEmpty()) {
      aside.add(new RunsSetAside.Run(shape, shapeVersion, run, runBytes)); // the latest goes last
      clearRun();
    }
    for (RunsSetAside.Run r : aside.takeAll()) {
      takeBack(r);
      writeRun();
    }
    writeRun();
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

  /**
   * The same schema version: usually the very same message (one per envelope or chunk), else equal
   * fingerprints.
   */
  private static boolean sameVersion(SchemaVersion a, SchemaVersion b) {
    return a == b || (a != null && b != null && a.getFingerprint().equals(b.getFingerprint()));
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

  /**
   * Any schema version of {@code relation} (a truncate needs one only to create a missing table).
   */
  private static SchemaVersion anyVersionOf(RelationId relation, List<SchemaVersion> schemas) {
    for (SchemaVersion v : schemas) {
      if (SchemaVersions.describes(v, relation)) {
        return v;
      }
    }
    return null;
  }

  private void add(ChangeRecord c) {
    run.add(c);
    runBytes += footprint(c);
  }

  /**
   * About the bytes a change holds: its values and a little per column. Bounds a run as well as the
   * serialized size would, without walking every string field of every change to encode its length.
   */
  private static long footprint(ChangeRecord c) {
    return 64 + imageBytes(c.getAfter()) + imageBytes(c.getBefore());
  }

  private static long imageBytes(RowImage image) {
    long bytes = 0;
    for (int i = 0, n = image.getColumnsCount(); i < n; i++) {
      ColumnValue v = image.getColumns(i);
      bytes += 4 + v.getTextBytes().size() + v.getBinary().size();
    }
    return bytes;
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
    writeAll();
    endCopy();
  }

  /**
   * Writes the pending run; a run of inserts written through COPY leaves the COPY open for the next
   * run.
   */
  private void writeRun() throws SQLException {
    if (run.isEmpty()) {
      return;
    }
    try {
      boolean intoCopy =
          shape.operation == Operation.OPERATION_INSERT
              && !upserts()
              && (run.size() >= options.copyThreshold() || insertCopy.open(shape));
      if (intoCopy) {
        copyRun(); // InsertCopy names the COPY's whole range for errors
        return;
      }
      endCopy(); // any other statement needs the connection out of COPY
      switch (shape.operation) {
        case OPERATION_INSERT -> insertRun();
        case OPERATION_UPDATE, OPERATION_DELETE -> keyedRun();
        default -> throw new IllegalStateException(shape.operation.toString());
      }
    } finally {
      longestRun = Math.max(longestRun, run.size());
      run.clear();
      runBytes = 0;
      shape = null;
      shapeVersion = null;
    }
  }

  // ---- inserts
  // --------------------------------------------------------------------------------------

  private boolean upserts() {
    return options.insertConflict() == InsertConflictPolicy.UPSERT
        || snapshot.upserts(shape.target);
  }

  /** A run of inserts too short for COPY, or upserting: multi-row INSERT statements. */
  private void insertRun() throws SQLException {
    atRun();
    boolean upsert = upserts();
    int perStatement =
        Math.max(1, Math.min(MAX_INSERT_ROWS, MAX_PARAMETERS / Math.max(1, shape.columns.length)));
    int done = 0;
    int full = run.size() / perStatement;
    if (full > 0) {
      PreparedStatement ps =
          session.prepare(
              shape.insertSql(
                  perStatement, upsert, shape.quotedTarget, run.get(0).getIdempotencyKey()));
      for (int s = 0; s < full; s++) {
        bindInsertRows(ps, done, perStatement);
        ps.addBatch();
        done += perStatement;
      }
      for (int n : ps.executeBatch()) {
        inserted += Math.max(n, 0);
      }
    }
    // the remainder in power-of-two statements, so a bounded set of statement shapes is prepared
    while (done < run.size()) {
      int rows = Integer.highestOneBit(run.size() - done);
      PreparedStatement ps =
          session.prepare(
              shape.insertSql(rows, upsert, shape.quotedTarget, run.get(done).getIdempotencyKey()));
      bindInsertRows(ps, done, rows);
      inserted += Math.max(ps.executeUpdate(), 0);
      done += rows;
    }
  }

  private void bindInsertRows(PreparedStatement ps, int from, int rows) throws SQLException {
    int p = 1;
    for (int r = from; r < from + rows; r++) {
      RowImage after = run.get(r).getAfter();
      for (int idx : shape.columnIndex) {
        bind(ps, p++, after.getColumns(idx));
      }
    }
  }

  /**
   * A run of inserts long enough for COPY, or continuing the COPY open for its shape ({@link
   * InsertCopy}).
   */
  private void copyRun() throws SQLException {
    insertCopy.write(shape, run);
    inserted +=
        run.size(); // counted once committed; a failure later in the COPY fails the transaction
  }

  private void endCopy() throws SQLException {
    insertCopy.end();
  }

  // ---- updates and deletes
  // --------------------------------------------------------------------------

  private void keyedRun() throws SQLException {
    boolean update = shape.operation == Operation.OPERATION_UPDATE;
    atRun();
    PreparedStatement ps = session.prepare(update ? shape.updateSql() : shape.deleteSql());
    for (ChangeRecord c : run) {
      int p = 1;
      if (update) {
        RowImage after = c.getAfter();
        for (int idx : shape.columnIndex) {
          bind(ps, p++, after.getColumns(idx));
        }
      }
      RowImage keyImage = shape.keyFromBefore ? c.getBefore() : c.getAfter();
      for (int k = 0; k < shape.keyIndex.length; k++) {
        if (!shape.keyIsNull[k]) {
          bind(ps, p++, keyImage.getColumns(shape.keyIndex[k]));
        }
      }
      if (run.size() == 1) {
        checkMatched(ps.executeUpdate(), c, update);
        return;
      }
      ps.addBatch();
    }
    int[] counts = ps.executeBatch();
    for (int i = 0; i < counts.length; i++) {
      checkMatched(counts[i], run.get(i), update);
    }
  }

  private void checkMatched(int count, ChangeRecord c, boolean update) {
    if (count == 0) {
      if (options.missingRow() == MissingRowPolicy.IGNORE) {
        missingRowsIgnored++;
        return;
      }
      throw new ApplyException(
          ApplyException.Reason.ROW_NOT_FOUND,
          shape.quotedTarget,
          c.getIdempotencyKey(),
          (update ? "update" : "delete")
              + " matched no row on the target: the"
              + " target diverged from the source ("
              + describeKey(c)
              + ")");
    }
    if (count > 1) { // the transaction rolls back: nothing of it is visible
      throw new ApplyException(
          ApplyException.Reason.MULTIPLE_ROWS_MATCHED,
          shape.quotedTarget,
          c.getIdempotencyKey(),
          (update ? "update" : "delete")
              + " matched "
              + count
              + " rows on the"
              + " target instead of one ("
              + describeKey(c)
              + ")");
    }
    if (update) {
      updated += count;
    } else {
      deleted += count;
    }
  }

  private String describeKey(ChangeRecord c) {
    RowImage keyImage = shape.keyFromBefore ? c.getBefore() : c.getAfter();
    StringBuilder b = new StringBuilder(shape.fullIdentity ? "old row " : "key ");
    for (int k = 0; k < shape.keyIndex.length; k++) {
      ColumnValue v = keyImage.getColumns(shape.keyIndex[k]);
      b.append(k == 0 ? "" : ", ")
          .append(shape.keyColumns[k])
          .append('=')
          .append(v.getState() == ColumnState.COLUMN_STATE_NULL ? "NULL" : v.getText());
    }
    return b.toString();
  }

  private static void bind(PreparedStatement ps, int p, ColumnValue v) throws SQLException {
    if (v.getState() == ColumnState.COLUMN_STATE_NULL) {
      ps.setNull(p, Types.OTHER);
    } else {
      ps.setObject(p, v.getText(), Types.OTHER);
    }
  }

  /** Error context: the run being written. */
  private void atRun() {
    session.atRun(
        shape.quotedTarget,
        run.get(0).getIdempotencyKey(),
        run.get(run.size() - 1).getIdempotencyKey(),
        run.size());
  }

  // ---- truncate and DDL
  // -----------------------------------------------------------------------------

  private void truncate(ChangeRecord c, List<SchemaVersion> schemas) throws SQLException {
    TruncateSpec spec = c.getTruncate();
    List<RelationId> relations =
        spec.getRelationsCount() > 0 ? spec.getRelationsList() : List.of(c.getRelation());
    List<QualifiedName> targets = new ArrayList<>(relations.size());
    for (RelationId r : relations) {
      QualifiedName t = mapper.target(r, c.getIdempotencyKey());
      tables.ensure(t, anyVersionOf(r, schemas), c.getIdempotencyKey());
      targets.add(t);
    }
    StringBuilder sql = new StringBuilder("TRUNCATE TABLE ");
    for (int i = 0; i < targets.size(); i++) {
      sql.append(i == 0 ? "" : ", ").append(targets.get(i).quoted());
    }
    session.at(sql.substring("TRUNCATE TABLE ".length()), c.getIdempotencyKey());
    if (spec.getRestartIdentity()) {
      sql.append(" RESTART IDENTITY");
    }
    if (spec.getCascade()) {
      for (QualifiedName dependent : tables.referencing(targets)) {
        if (!mapper.allows(dependent)) {
          throw new ApplyException(
              ApplyException.Reason.RELATION_REFUSED,
              dependent.quoted(),
              c.getIdempotencyKey(),
              "TRUNCATE ... CASCADE of "
                  + targets
                  + " would also empty "
                  + dependent.quoted()
                  + ", which is not on the sink's allowlist; nothing of the"
                  + " transaction is applied");
        }
      }
      sql.append(" CASCADE");
    }
    session.execute(sql.toString());
    truncates++;
  }

  /**
   * Handles one DDL event at its place in the transaction (after every event of lower total order).
   */
  public void ddl(DdlEvent d) throws SQLException {
    flush();
    if (ddl.apply(d, envelopeKey(d.getTotalOrder()))) {
      lastSource = null; // statements ran: mapping checks and table descriptions start again
    }
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

  private String envelopeKey(long totalOrder) {
    return io.trellara.protocol.EventKey.of(sourceId, commitLsn, transactionId, totalOrder);
  }
}
