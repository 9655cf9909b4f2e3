package io.trellara.source.pgoutput;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.source.pgoutput.PgOutputCaptureScenarios.Scenario;
import io.trellara.source.pgoutput.PgOutputMessage.Begin;
import io.trellara.source.pgoutput.PgOutputMessage.Commit;
import io.trellara.source.pgoutput.PgOutputMessage.Delete;
import io.trellara.source.pgoutput.PgOutputMessage.Insert;
import io.trellara.source.pgoutput.PgOutputMessage.LogicalMessage;
import io.trellara.source.pgoutput.PgOutputMessage.Origin;
import io.trellara.source.pgoutput.PgOutputMessage.Relation;
import io.trellara.source.pgoutput.PgOutputMessage.StreamAbort;
import io.trellara.source.pgoutput.PgOutputMessage.StreamCommit;
import io.trellara.source.pgoutput.PgOutputMessage.StreamStart;
import io.trellara.source.pgoutput.PgOutputMessage.StreamStop;
import io.trellara.source.pgoutput.PgOutputMessage.Streamable;
import io.trellara.source.pgoutput.PgOutputMessage.Truncate;
import io.trellara.source.pgoutput.PgOutputMessage.Type;
import io.trellara.source.pgoutput.PgOutputMessage.Update;
import io.trellara.source.pgoutput.TupleData.ColumnKind;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * What each capture scenario must decode to. Shared by the fixture tests (captured bytes) and the
 * live integration test (bytes from a running server), so nothing here compares LSNs, xids or
 * timestamps with constants: only their relations (begin final LSN = commit LSN, xids consistent
 * across a stream ...).
 */
final class PgOutputScenarioExpectations {

  static final long INT8 = 20;
  static final long BOOL = 16;
  static final long BYTEA = 17;
  static final long INT4 = 23;
  static final long TEXT = 25;
  static final long VARCHAR = 1043;
  static final long TIMESTAMPTZ = 1184;
  static final long NUMERIC = 1700;
  static final long UUID = 2950;
  static final long JSONB = 3802;
  static final long TEXT_ARRAY = 1009;

  private static final Instant CAPTURED_AFTER = Instant.parse("2020-01-01T00:00:00Z");

  private PgOutputScenarioExpectations() {}

  static void verify(Scenario scenario, List<PgOutputMessage> messages) {
    switch (scenario) {
      case MULTI_TABLE_DML -> multiTableDml(messages);
      case TOAST_UNCHANGED -> toastUnchanged(messages);
      case OLD_TUPLES -> oldTuples(messages);
      case STREAMED_PROTO2 -> streamedProto2(messages);
      case LARGE_PROTO1 -> largeProto1(messages);
      case LOGICAL_MESSAGES -> logicalMessages(messages);
      case TYPE_AND_ORIGIN -> typeAndOrigin(messages);
      case BINARY_PROTO2 -> binaryProto2(messages);
    }
  }

  static String types(List<PgOutputMessage> messages) {
    StringBuilder sb = new StringBuilder(messages.size());
    messages.forEach(m -> sb.append((char) m.type()));
    return sb.toString();
  }

  static void multiTableDml(List<PgOutputMessage> m) {
    assertThat(types(m)).isEqualTo("BRIIRIUDRTC");
    assertTransactionFrame((Begin) m.get(0), (Commit) m.get(10));
    assertThat(m)
        .filteredOn(x -> x instanceof Streamable)
        .allSatisfy(x -> assertThat(((Streamable) x).streamed()).isFalse());

    Relation account = (Relation) m.get(1);
    assertThat(account.namespace()).isEqualTo("public");
    assertThat(account.name()).isEqualTo("account");
    assertThat(account.replicaIdentity()).isEqualTo(ReplicaIdentity.DEFAULT);
    assertThat(account.columns())
        .extracting(Relation.Column::name)
        .containsExactly(
            "id", "owner", "balance", "opened_at", "photo", "attrs", "tags", "ext_id", "active");
    assertThat(account.columns())
        .extracting(Relation.Column::key)
        .containsExactly(true, false, false, false, false, false, false, false, false);
    assertThat(account.columns())
        .extracting(Relation.Column::typeOid)
        .containsExactly(INT8, TEXT, NUMERIC, TIMESTAMPTZ, BYTEA, JSONB, TEXT_ARRAY, UUID, BOOL);
    assertThat(account.columns().get(2).typeModifier())
        .isEqualTo(((12 << 16) | 2) + 4); // numeric(12,2)
    assertThat(account.columns().get(0).typeModifier()).isEqualTo(-1);

    Insert alice = (Insert) m.get(2);
    assertThat(alice.relationOid()).isEqualTo(account.relationOid());
    TupleData row = alice.newTuple();
    assertThat(row.columnCount()).isEqualTo(9);
    assertThat(kinds(row)).isEqualTo("ttttttttt");
    assertThat(row.textValue(0)).isEqualTo("1");
    assertThat(row.textValue(1)).isEqualTo("alice");
    assertThat(row.textValue(2)).isEqualTo("1234.50");
    assertThat(timestamptz(row.textValue(3)))
        .isEqualTo(Instant.parse("2026-11-29T12:34:56.789012Z"));
    assertThat(row.textValue(4)).isEqualTo("\\x00ff10");
    assertThat(row.textValue(5)).isEqualTo("{\"n\": [1, 2], \"tier\": \"gold\"}");
    assertThat(row.textValue(6)).isEqualTo("{red,\"with space\",NULL}");
    assertThat(row.textValue(7)).isEqualTo("6f1c2a9e-3b7d-4c1e-9a2f-0d8e7b6a5c4d");
    assertThat(row.textValue(8)).isEqualTo("t");

    TupleData bob = ((Insert) m.get(3)).newTuple();
    assertThat(kinds(bob)).isEqualTo("ttnnnnnnn");
    assertThat(bob.textValue(1)).isEqualTo("bob");
    assertThat(bob.isNull(2)).isTrue();
    assertThat(bob.value(2)).isNull();

    Relation orders = (Relation) m.get(4);
    assertThat(orders.name()).isEqualTo("orders");
    assertThat(orders.columns())
        .extracting(Relation.Column::typeOid)
        .containsExactly(INT4, INT8, NUMERIC, VARCHAR, TIMESTAMPTZ);
    assertThat(orders.columns().get(3).typeModifier()).isEqualTo(200 + 4); // varchar(200)
    assertThat(orders.columns().get(2).typeModifier()).isEqualTo(-1);
    TupleData order = ((Insert) m.get(5)).newTuple();
    assertThat(order.textValue(0)).isEqualTo("10");
    assertThat(order.textValue(2)).isEqualTo("99.95");
    assertThat(order.textValue(3)).isEqualTo("first order");
    assertThat(timestamptz(order.textValue(4))).isEqualTo(Instant.parse("2026-11-29T02:30:00Z"));

    Update debit = (Update) m.get(6);
    assertThat(debit.relationOid()).isEqualTo(account.relationOid());
    assertThat(debit.oldTupleKind()).isEqualTo(OldTupleKind.NONE);
    assertThat(debit.oldTuple()).isNull();
    assertThat(debit.newTuple().textValue(2)).isEqualTo("1134.55");

    Delete deleted = (Delete) m.get(7);
    assertThat(deleted.relationOid()).isEqualTo(orders.relationOid());
    assertThat(deleted.oldTupleKind()).isEqualTo(OldTupleKind.KEY);
    assertThat(kinds(deleted.oldTuple())).isEqualTo("tnnnn");
    assertThat(deleted.oldTuple().textValue(0)).isEqualTo("9");

    Relation scratch = (Relation) m.get(8);
    assertThat(scratch.name()).isEqualTo("scratch");
    Truncate truncate = (Truncate) m.get(9);
    assertThat(truncate.relationOids()).containsExactly(scratch.relationOid());
    assertThat(truncate.cascade()).isTrue();
    assertThat(truncate.restartIdentity()).isTrue();
    assertThat(truncate.options()).isEqualTo(3);
  }

  static void toastUnchanged(List<PgOutputMessage> m) {
    assertThat(types(m)).isEqualTo("BRUC");
    assertTransactionFrame((Begin) m.get(0), (Commit) m.get(3));
    Relation document = (Relation) m.get(1);
    assertThat(document.name()).isEqualTo("document");
    Update update = (Update) m.get(2);
    assertThat(update.oldTupleKind()).isEqualTo(OldTupleKind.NONE);
    TupleData row = update.newTuple();
    assertThat(kinds(row)).isEqualTo("ttu");
    assertThat(row.kind(2)).isEqualTo(ColumnKind.UNCHANGED_TOAST);
    assertThat(row.isUnchangedToast(2)).isTrue();
    assertThat(row.isNull(2)).isFalse();
    assertThat(row.valueBytes(2)).isNull();
    assertThat(row.textValue(0)).isEqualTo("1");
    assertThat(row.textValue(1)).isEqualTo("v2");
  }

  static void oldTuples(List<PgOutputMessage> m) {
    assertThat(types(m)).isEqualTo("BRUDCBRUDC");
    assertTransactionFrame((Begin) m.get(0), (Commit) m.get(4));
    assertTransactionFrame((Begin) m.get(5), (Commit) m.get(9));

    Relation account = (Relation) m.get(1);
    assertThat(account.name()).isEqualTo("account");
    Update keyChange = (Update) m.get(2);
    assertThat(keyChange.oldTupleKind()).isEqualTo(OldTupleKind.KEY);
    assertThat(kinds(keyChange.oldTuple())).isEqualTo("tnnnnnnnn");
    assertThat(keyChange.oldTuple().textValue(0)).isEqualTo("30");
    assertThat(keyChange.newTuple().textValue(0)).isEqualTo("32");
    assertThat(keyChange.newTuple().textValue(1)).isEqualTo("carol");
    assertThat(keyChange.newTuple().textValue(2)).isEqualTo("10.00");
    Delete keyDelete = (Delete) m.get(3);
    assertThat(keyDelete.oldTupleKind()).isEqualTo(OldTupleKind.KEY);
    assertThat(keyDelete.oldTuple().textValue(0)).isEqualTo("31");
    assertThat(keyDelete.oldTuple().isNull(1)).isTrue();

    Relation ledger = (Relation) m.get(6);
    assertThat(ledger.name()).isEqualTo("ledger_full");
    assertThat(ledger.replicaIdentity()).isEqualTo(ReplicaIdentity.FULL);
    assertThat(ledger.columns()).extracting(Relation.Column::key).containsOnly(true);
    Update fullUpdate = (Update) m.get(7);
    assertThat(fullUpdate.oldTupleKind()).isEqualTo(OldTupleKind.OLD);
    assertThat(texts(fullUpdate.oldTuple())).containsExactly("1", "30", "5.00", "m1");
    assertThat(texts(fullUpdate.newTuple())).containsExactly("1", "30", "5.00", "changed");
    Delete fullDelete = (Delete) m.get(8);
    assertThat(fullDelete.oldTupleKind()).isEqualTo(OldTupleKind.OLD);
    assertThat(texts(fullDelete.oldTuple())).containsExactly("2", "31", "6.00", "m2");
  }

  /** The committed rows of the big workload: ids 1..1000 and 1501..3000 of batch A. */
  static final Set<Integer> BIG_WORKLOAD_COMMITTED_IDS =
      IntStream.concat(IntStream.rangeClosed(1, 1000), IntStream.rangeClosed(1501, 3000))
          .boxed()
          .collect(Collectors.toSet());

  static void streamedProto2(List<PgOutputMessage> m) {
    assertThat(types(m)).doesNotContain("B", "C").contains("S", "E", "A", "c");
    StreamAnalysis s = StreamAnalysis.of(m);

    assertThat(s.topLevelXids).hasSize(2);
    assertThat(s.commits).hasSize(1);
    long committed = s.commits.get(0).xid();
    assertThat(s.topLevelXids).contains(committed);
    long aborted = s.topLevelXids.stream().filter(x -> x != committed).findFirst().orElseThrow();

    List<StreamAbort> topAborts =
        s.aborts.stream().filter(StreamAbort::abortsTopLevelTransaction).toList();
    List<StreamAbort> subAborts =
        s.aborts.stream().filter(a -> !a.abortsTopLevelTransaction()).toList();
    assertThat(topAborts).extracting(StreamAbort::xid).containsExactly(aborted);
    assertThat(subAborts)
        .extracting(StreamAbort::xid)
        .containsExactlyInAnyOrder(committed, aborted);

    // every row of the rolled-back savepoints carries the aborted subtransaction's xid, and only
    // those do
    Set<Long> abortedSubxids =
        subAborts.stream().map(StreamAbort::subtransactionXid).collect(Collectors.toSet());
    for (StreamedChange c : s.inserts) {
      String batch = c.insert.newTuple().textValue(1);
      assertThat(abortedSubxids.contains(c.insert.streamXid()))
          .as(
              "row %s of batch %s with xid %d",
              c.insert.newTuple().textValue(0), batch, c.insert.streamXid())
          .isEqualTo(batch.endsWith("-rolled-back"));
      assertThat(batch.startsWith("A")).isEqualTo(c.topLevelXid == committed);
    }
    assertThat(s.inserts)
        .anySatisfy(c -> assertThat(c.insert.newTuple().textValue(1)).isEqualTo("A-rolled-back"));
    assertThat(s.inserts)
        .anySatisfy(c -> assertThat(c.insert.newTuple().textValue(1)).isEqualTo("B-rolled-back"));

    // what commits: exactly the rows outside rolled-back savepoints of the committed transaction
    List<Insert> committedRows =
        s.inserts.stream()
            .filter(
                c -> c.topLevelXid == committed && !abortedSubxids.contains(c.insert.streamXid()))
            .map(c -> c.insert)
            .toList();
    assertThat(committedRows).hasSize(2500);
    assertThat(ids(committedRows)).isEqualTo(BIG_WORKLOAD_COMMITTED_IDS);

    // the transactional message and the truncate travel inside the committed transaction's stream
    // blocks
    assertThat(s.streamedOthers)
        .filteredOn(c -> c.message instanceof LogicalMessage)
        .singleElement()
        .satisfies(
            c -> {
              LogicalMessage msg = (LogicalMessage) c.message;
              assertThat(c.topLevelXid).isEqualTo(committed);
              assertThat(msg.streamed()).isTrue();
              assertThat(msg.transactional()).isTrue();
              assertThat(msg.prefix()).isEqualTo("trellara.ddl");
              assertThat(new String(msg.content(), StandardCharsets.UTF_8))
                  .isEqualTo("{\"command\":\"streamed marker\"}");
            });
    assertThat(s.streamedOthers)
        .filteredOn(c -> c.message instanceof Truncate)
        .singleElement()
        .satisfies(c -> assertThat(c.topLevelXid).isEqualTo(committed));
    assertThat(s.streamedOthers)
        .filteredOn(c -> c.message instanceof Relation)
        .extracting(c -> ((Relation) c.message).name())
        .contains("bulk_item", "scratch");

    StreamCommit commit = s.commits.get(0);
    assertThat(commit.endLsn()).isGreaterThan(commit.commitLsn());
    assertThat(Instant.ofEpochMilli(commit.commitTimestampEpochMillis())).isAfter(CAPTURED_AFTER);
  }

  static void largeProto1(List<PgOutputMessage> m) {
    assertThat(PgOutputFixtureCapture.compress(types(m))).isEqualTo("B R I*1000 M R T I*1500 C");
    assertTransactionFrame((Begin) m.get(0), (Commit) m.get(m.size() - 1));
    assertThat(m)
        .filteredOn(x -> x instanceof Streamable)
        .allSatisfy(x -> assertThat(((Streamable) x).streamXid()).isZero());
    List<Insert> rows = m.stream().filter(x -> x instanceof Insert).map(x -> (Insert) x).toList();
    assertThat(ids(rows)).isEqualTo(BIG_WORKLOAD_COMMITTED_IDS);
    assertThat(rows).allSatisfy(r -> assertThat(r.newTuple().textValue(1)).isEqualTo("A"));
    LogicalMessage ddl = (LogicalMessage) m.get(1002);
    assertThat(ddl.transactional()).isTrue();
    assertThat(ddl.streamed()).isFalse();
    assertThat(ddl.prefix()).isEqualTo("trellara.ddl");
    assertThat(((Relation) m.get(1003)).name()).isEqualTo("scratch");
    assertThat(((Truncate) m.get(1004)).relationOids())
        .containsExactly(((Relation) m.get(1003)).relationOid());
  }

  static void logicalMessages(List<PgOutputMessage> m) {
    assertThat(types(m)).isEqualTo("BRIMICMM");
    Begin begin = (Begin) m.get(0);
    Commit commit = (Commit) m.get(5);
    assertTransactionFrame(begin, commit);
    LogicalMessage ddl = (LogicalMessage) m.get(3);
    assertThat(ddl.transactional()).isTrue();
    assertThat(ddl.streamed()).isFalse();
    assertThat(ddl.prefix()).isEqualTo("trellara.ddl");
    assertThat(new String(ddl.content(), StandardCharsets.UTF_8))
        .isEqualTo("{\"command\":\"ALTER TABLE\",\"object\":\"public.orders\"}");
    assertThat(ddl.lsn()).isPositive().isLessThan(commit.commitLsn());
    assertThat(((Insert) m.get(2)).newTuple().textValue(3)).isEqualTo("before ddl");
    assertThat(((Insert) m.get(4)).newTuple().textValue(3)).isEqualTo("after ddl");

    LogicalMessage audit = (LogicalMessage) m.get(6);
    assertThat(audit.transactional()).isFalse();
    assertThat(audit.prefix()).isEqualTo("trellara.audit");
    assertThat(new String(audit.content(), StandardCharsets.UTF_8))
        .isEqualTo("non-transactional hello");
    assertThat(audit.lsn()).isGreaterThan(commit.commitLsn());
    LogicalMessage bin = (LogicalMessage) m.get(7);
    assertThat(bin.transactional()).isFalse();
    assertThat(bin.prefix()).isEqualTo("trellara.bin");
    assertThat(bin.content()).containsExactly(0x00, 0xff, 0x7f);
  }

  static void typeAndOrigin(List<PgOutputMessage> m) {
    assertThat(types(m)).isEqualTo("BOYYRICBIIC");
    assertTransactionFrame((Begin) m.get(0), (Commit) m.get(6));
    assertTransactionFrame((Begin) m.get(7), (Commit) m.get(10));
    Origin origin = (Origin) m.get(1);
    assertThat(origin.name()).isEqualTo("trellara_upstream");
    assertThat(origin.originLsn()).isEqualTo(0xABCDEFL);
    // PostgreSQL sends the enum as itself, and the domain under its own OID but with the name and
    // namespace of its base type (logicalrep_write_typ uses getBaseType): "" is pg_catalog
    Map<String, Type> typesByName = new HashMap<>();
    for (PgOutputMessage x : m.subList(2, 4)) {
      Type t = (Type) x;
      assertThat(t.streamed()).isFalse();
      typesByName.put(t.name(), t);
    }
    assertThat(typesByName).containsOnlyKeys("mood", "int4");
    assertThat(typesByName.get("mood").namespace()).isEqualTo("public");
    assertThat(typesByName.get("int4").namespace()).isEmpty();
    assertThat(typesByName.get("int4").typeOid()).isNotEqualTo(INT4);
    Relation moodLog = (Relation) m.get(4);
    assertThat(moodLog.name()).isEqualTo("mood_log");
    assertThat(moodLog.columns())
        .extracting(Relation.Column::typeOid)
        .containsExactly(
            INT4, typesByName.get("mood").typeOid(), typesByName.get("int4").typeOid());
    assertThat(texts(((Insert) m.get(5)).newTuple())).containsExactly("1", "happy", "7");
    assertThat(texts(((Insert) m.get(8)).newTuple())).containsExactly("2", "sad", "1");
    assertThat(kinds(((Insert) m.get(9)).newTuple())).isEqualTo("tnn");
  }

  static void binaryProto2(List<PgOutputMessage> m) {
    assertThat(types(m)).isEqualTo("BRIC");
    assertTransactionFrame((Begin) m.get(0), (Commit) m.get(3));
    TupleData row = ((Insert) m.get(2)).newTuple();
    assertThat(kinds(row)).isEqualTo("bbbbbbbbb");
    assertThat(row.kind(0)).isEqualTo(ColumnKind.BINARY);
    assertThat(row.valueBytes(0)).containsExactly(0, 0, 0, 0, 0, 0, 0, 80); // int8 send format
    assertThat(row.valueBytes(1)).isEqualTo("erin".getBytes(StandardCharsets.UTF_8));
    assertThat(row.valueBytes(4)).containsExactly(1); // bytea send format: the raw bytes
    assertThat(row.valueBytes(8)).containsExactly(0); // bool false
    assertThat(row.value(7).remaining()).isEqualTo(16); // uuid
  }

  // ---------------------------------------------------------------------------------------------

  static void assertTransactionFrame(Begin begin, Commit commit) {
    assertThat(begin.xid()).isPositive();
    assertThat(begin.finalLsn()).isEqualTo(commit.commitLsn());
    assertThat(commit.endLsn()).isGreaterThan(commit.commitLsn());
    assertThat(commit.commitTimestampMicros()).isEqualTo(begin.commitTimestampMicros());
    assertThat(Instant.ofEpochMilli(commit.commitTimestampEpochMillis())).isAfter(CAPTURED_AFTER);
    assertThat(commit.flags()).isZero();
  }

  static String kinds(TupleData tuple) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < tuple.columnCount(); i++) {
      sb.append((char) tuple.kindCode(i));
    }
    return sb.toString();
  }

  static List<String> texts(TupleData tuple) {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < tuple.columnCount(); i++) {
      values.add(tuple.textValue(i));
    }
    return values;
  }

  static Set<Integer> ids(List<Insert> rows) {
    Set<Integer> ids = new TreeSet<>();
    for (Insert r : rows) {
      assertThat(ids.add(Integer.parseInt(r.newTuple().textValue(0)))).as("duplicate row").isTrue();
    }
    return ids;
  }

  /** Parses PostgreSQL's timestamptz text output ("2026-11-29 12:34:56.789012+05:30", "+00"). */
  static Instant timestamptz(String text) {
    String iso = text.replace(' ', 'T');
    int sign = Math.max(iso.lastIndexOf('+'), iso.lastIndexOf('-'));
    if (iso.length() - sign == 3) {
      iso = iso + ":00";
    }
    return OffsetDateTime.parse(iso).toInstant();
  }

  record StreamedChange(long topLevelXid, Insert insert) {}

  record StreamedOther(long topLevelXid, PgOutputMessage message) {}

  /**
   * Walks a protocol-2 stream: block structure, top-level xids, streamed changes per top-level xid.
   */
  static final class StreamAnalysis {
    final Set<Long> topLevelXids = new LinkedHashSet<>();
    final List<StreamCommit> commits = new ArrayList<>();
    final List<StreamAbort> aborts = new ArrayList<>();
    final List<StreamedChange> inserts = new ArrayList<>();
    final List<StreamedOther> streamedOthers = new ArrayList<>();

    static StreamAnalysis of(List<PgOutputMessage> messages) {
      StreamAnalysis s = new StreamAnalysis();
      Long block = null;
      Set<Long> seen = new HashSet<>();
      for (PgOutputMessage msg : messages) {
        if (msg instanceof StreamStart start) {
          assertThat(block).as("nested Stream Start").isNull();
          block = start.xid();
          assertThat(start.firstSegment())
              .as("first segment flag of %d", start.xid())
              .isEqualTo(seen.add(start.xid()));
          if (start.firstSegment()) {
            s.topLevelXids.add(start.xid());
          }
        } else if (msg instanceof StreamStop) {
          assertThat(block).as("Stream Stop outside a block").isNotNull();
          block = null;
        } else if (msg instanceof StreamCommit c) {
          assertThat(block).isNull();
          s.commits.add(c);
        } else if (msg instanceof StreamAbort a) {
          assertThat(block).isNull();
          s.aborts.add(a);
        } else if (msg instanceof Streamable st) {
          assertThat(block).as("streamed change outside a block").isNotNull();
          assertThat(st.streamed()).isTrue();
          if (st instanceof Insert insert) {
            s.inserts.add(new StreamedChange(block, insert));
          } else {
            s.streamedOthers.add(new StreamedOther(block, st));
          }
        }
      }
      assertThat(block).as("stream ends inside a block").isNull();
      return s;
    }
  }
}
