package io.trellara.sink.connect;

import static io.trellara.sink.connect.ForgedRecords.Forged.envelope;
import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.nul;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.val;

import io.trellara.protocol.EventKey;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ManifestPartition;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.sink.connect.ForgedRecords.Attack;
import io.trellara.sink.connect.ForgedRecords.Forged;
import io.trellara.sink.postgres.Barriers;
import io.trellara.sink.postgres.CraftedRecords;
import io.trellara.sink.postgres.Tx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The attacks of issue 29's findings, one per attack class of docs/security.md ("Statements the
 * sink issues, types it creates, retypes it allows", "What DDL replay may run", "Positions, dedup,
 * staging and sizes a topic writer cannot poison"), in the shape of the unit tests that perform
 * them on an embedded target ({@code TargetReachTest}, {@code ColumnTypeGateTest}, {@code
 * LossyRetypeTest}, {@code DdlReplayGateTest}, {@code ForgedPositionsTest}, {@code
 * StagingSweepTest}, {@code LoneChunkZeroTest}, {@code DeclaredSizesTest}), here written straight
 * to the topic of a sink deployed over REST. The target fixture is {@link ForgedRecordsIT}'s.
 */
final class ForgedAttacks {
  private ForgedAttacks() {}

  static final String REAL = ForgedRecordsIT.REAL;
  static final RelationId ACCOUNT = rel("public", "account");
  static final RelationId LEDGER = rel("public", "ledger");
  static final RelationId EVENT = rel("public", "event");
  static final String LEDGER_FORGED = "SELECT count(*) FROM ledger WHERE tx >= 900";
  static final long HUGE = Integer.MAX_VALUE - 1L; // 2^31-2

  /** Inheritance children of account and ledger outside the allowlist, with rows of their own. */
  static final String[] CHILDREN = {
    "CREATE TABLE account_child () INHERITS (account)",
    "INSERT INTO account_child VALUES (4, 1000), (5, 1000)",
    "CREATE TABLE ledger_child () INHERITS (ledger)",
    "INSERT INTO ledger_child VALUES (500, 0), (501, 0)"
  };

  static final String CHILDREN_CHANGED =
      "SELECT (SELECT count(*) FROM account_child WHERE balance <> 1000)"
          + " + (SELECT CASE WHEN count(*) = 2 THEN 0 ELSE 1 END FROM account_child)"
          + " + (SELECT CASE WHEN count(*) = 2 THEN 0 ELSE 1 END FROM ledger_child)"
          + " + (SELECT count(*) FROM information_schema.columns"
          + " WHERE table_name IN ('account_child', 'ledger_child') AND column_name = 'extra')";

  /** A column named extra on ledger (schema evolution or replay let a forged type through). */
  static final String LEDGER_EXTENDED =
      "SELECT count(*) FROM information_schema.columns WHERE table_schema = 'public'"
          + " AND table_name = 'ledger' AND column_name IN ('extra', 'leak')";

  /** event's columns and types as the fixture made them: a retype or a drop changes them. */
  static final String EVENT_CHANGED =
      sum(
          "SELECT CASE WHEN string_agg(column_name || ' ' || data_type, ',' ORDER BY"
              + " ordinal_position) = 'id integer,at timestamp with time zone,note text,n integer'"
              + " THEN 0 ELSE 1 END FROM information_schema.columns"
              + " WHERE table_schema = 'public' AND table_name = 'event'",
          "SELECT 1 - count(*) FROM event WHERE id = 1 AND at = '2026-01-02 03:04:05+00'"
              + " AND note = 'a long note'");

  /** A position moved past the probe (0/100000) by something not applied by the real source. */
  static final String POSITION_POISONED =
      sum(
          LEDGER_FORGED,
          "SELECT count(*) FROM trellara_sink.applied_transactions"
              + " WHERE commit_lsn > '0/100000'::pg_lsn");

  /** The sum of the counts of {@code queries}. */
  static String sum(String... queries) {
    return "SELECT "
        + String.join(" + ", java.util.Arrays.stream(queries).map(q -> "(" + q + ")").toList());
  }

  static List<Attack> all() {
    List<Attack> a = new ArrayList<>();
    a.addAll(targetReach());
    a.addAll(types());
    a.addAll(retypes());
    a.addAll(replay());
    a.addAll(positions());
    a.addAll(barriers());
    a.add(
        Attack.of(
                "newline-in-a-relation-name (log injection)",
                envelope(
                    Tx.tx("evil", 0x2000, "2")
                        .insert(
                            rel("public", "ledger\nERROR forged log line"),
                            key("tx", "integer", "900"),
                            val("moves", "integer", "1"))
                        .build()),
                LEDGER_FORGED)
            .refusedAs("RELATION_REFUSED", "ledger\\nERROR forged log line", "!\nERROR forged"));
    return a;
  }

  /** ONLY on every statement; partitioned targets only when every partition is allowlisted. */
  private static List<Attack> targetReach() {
    return List.of(
        Attack.of(
                "update-reaching-an-inheritance-child",
                envelope(
                    Tx.tx("evil", 0x2000, "2")
                        .update(
                            ACCOUNT,
                            Tx.row(key("id", "integer", "4")),
                            key("id", "integer", "4"),
                            val("balance", "bigint", "0"))
                        .build()),
                CHILDREN_CHANGED)
            .given(CHILDREN),
        Attack.of(
                "delete-reaching-an-inheritance-child",
                envelope(
                    Tx.tx("evil", 0x2000, "2").delete(ACCOUNT, key("id", "integer", "5")).build()),
                CHILDREN_CHANGED)
            .given(CHILDREN),
        Attack.of(
                "full-identity-delete-reaching-an-inheritance-child",
                envelope(
                    Tx.tx("evil", 0x2000, "2")
                        .identity(ReplicaIdentity.REPLICA_IDENTITY_FULL)
                        .delete(
                            ACCOUNT, key("id", "integer", "4"), val("balance", "bigint", "1000"))
                        .build()),
                CHILDREN_CHANGED)
            .given(CHILDREN),
        Attack.of(
                "truncate-reaching-an-inheritance-child",
                envelope(Tx.tx("evil", 0x2000, "2").truncate(false, false, LEDGER).build()),
                CHILDREN_CHANGED)
            .given(CHILDREN),
        Attack.of(
                "schema-change-of-a-parent-with-a-child-outside-the-allowlist",
                envelope(
                    Tx.tx("evil", 0x2000, "2")
                        .insert(
                            LEDGER,
                            key("tx", "integer", "900"),
                            val("moves", "integer", "1"),
                            val("extra", "integer", "1"))
                        .build()),
                sum(CHILDREN_CHANGED, LEDGER_FORGED))
            .given(CHILDREN)
            .refusedAs("SCHEMA_CHANGE_REFUSED", "ledger_child"),
        Attack.of(
                "insert-into-a-partitioned-table-with-a-partition-outside-the-allowlist",
                envelope(
                    Tx.tx("evil", 0x2000, "2")
                        .insert(
                            rel("public", "part"),
                            key("id", "integer", "500"),
                            val("v", "text", "forged"))
                        .build()),
                "SELECT count(*) FROM part_secret")
            .given(
                "CREATE TABLE part (id integer PRIMARY KEY, v text) PARTITION BY RANGE (id)",
                "CREATE TABLE part_low PARTITION OF part FOR VALUES FROM (0) TO (100)",
                "CREATE TABLE part_secret PARTITION OF part FOR VALUES FROM (100) TO (1000)")
            .with(
                "relation.allowlist",
                "public.account,public.ledger,public.event,public.part,public.part_low")
            .refusedAs("RELATION_REFUSED", "part_secret"));
  }

  /** A forged schema version adding a column of type {@code type} to ledger. */
  private static Attack typedColumn(String name, String type) {
    return Attack.of(
            name,
            envelope(
                Tx.tx("evil", 0x2000, "2")
                    .insert(
                        LEDGER,
                        key("tx", "integer", "900"),
                        val("moves", "integer", "1"),
                        nul("extra", type))
                    .build()),
            sum(LEDGER_EXTENDED, LEDGER_FORGED))
        .refusedAs("TYPE_REFUSED", "extra");
  }

  /** Types by name: built-ins, their arrays and target.types.allowed, nothing else. */
  private static List<Attack> types() {
    return List.of(
        typedColumn("column-typed-as-a-table-outside-the-allowlist", "secret"),
        typedColumn(
            "column-typed-as-trellara_sink.partition_owners", "trellara_sink.partition_owners"),
        typedColumn("column-typed-as-an-unlisted-enum", "mood")
            .given("CREATE TYPE mood AS ENUM ('ok', 'sad')"),
        Attack.of(
                "table-created-with-a-row-typed-column",
                envelope(
                    Tx.tx("evil", 0x2000, "2")
                        .insert(
                            rel("public", "fresh"),
                            key("id", "integer", "1"),
                            nul("leak", "secret"))
                        .build()),
                "SELECT CASE WHEN to_regclass('public.fresh') IS NULL THEN 0 ELSE 1 END")
            .with("target.tables.create", "true")
            .with("relation.allowlist", "public.account,public.ledger,public.event,public.fresh")
            .refusedAs("TYPE_REFUSED", "leak"));
  }

  /** A forged next version of event (the baseline recorded its first). */
  private static Attack retype(String name, Tx.Col at, Tx.Col note, boolean withN) {
    Tx.Col[] cols =
        withN
            ? new Tx.Col[] {key("id", "integer", "3"), at, note, val("n", "integer", "3")}
            : new Tx.Col[] {key("id", "integer", "3"), at, note};
    return Attack.of(
            name, envelope(Tx.tx(REAL, 0x2000, "2").insert(EVENT, cols).build()), EVENT_CHANGED)
        .refusedAs("SCHEMA_CHANGE_REFUSED", "schema.evolution.lossy.tables");
  }

  /** Widening retypes only; lossy ones and drops wait for schema.evolution.lossy.tables. */
  private static List<Attack> retypes() {
    Tx.Col at = val("at", "timestamp with time zone", "2026-01-03 00:00:00+00");
    Tx.Col note = val("note", "text", "c");
    return List.of(
        retype("retype-timestamptz-to-date", val("at", "date", "2026-01-03"), note, true),
        retype(
            "retype-text-to-varchar(1)",
            at,
            val("note", "character varying", "c").typeModifier(1 + 4),
            true),
        retype("dropped-column (drop.columns=drop)", at, note, false)
            .with("schema.evolution.drop.columns", "drop"));
  }

  /** A replayed DDL statement, with the replay opt-in set. */
  private static Attack replayed(String name, String statement, String object, String harm) {
    return Attack.of(
            name, envelope(CraftedRecords.ddl("evil", 0x2000, "2", statement, object)), harm)
        .with("ddl.apply", "replay")
        .with("ddl.replay.trust.topic.writers", "true")
        .refusedAs("DDL_REFUSED");
  }

  /** The replay gate: the listed forms on allowlisted tables, no CASCADE, no trigger changes. */
  private static List<Attack> replay() {
    return List.of(
        replayed(
            "replay-drop-constraint-cascade",
            "ALTER TABLE public.account DROP CONSTRAINT account_pkey CASCADE",
            "public.account",
            "SELECT CASE WHEN count(*) = 1 THEN 0 ELSE 1 END FROM pg_constraint"
                + " WHERE conrelid = 'public.secret'::regclass AND contype = 'f'"),
        replayed(
            "replay-disable-trigger-all",
            "ALTER TABLE public.account DISABLE TRIGGER ALL",
            "public.account",
            "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'public.account'::regclass"
                + " AND tgenabled = 'D'"),
        replayed(
                "replay-owner-to",
                "ALTER TABLE public.ledger OWNER TO forged_owner",
                "public.ledger",
                "SELECT count(*) FROM pg_class WHERE oid = 'public.ledger'::regclass"
                    + " AND relowner = (SELECT oid FROM pg_roles WHERE rolname = 'forged_owner')")
            .given(
                "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'forged_owner')"
                    + " THEN CREATE ROLE forged_owner; END IF; END $$"),
        replayed(
            "replay-of-a-table-outside-the-allowlist",
            "ALTER TABLE public.secret DROP COLUMN note",
            "public.secret",
            "SELECT CASE WHEN count(*) = 3 THEN 0 ELSE 1 END FROM information_schema.columns"
                + " WHERE table_schema = 'public' AND table_name = 'secret'"),
        replayed(
                "replay-column-typed-as-a-table",
                "ALTER TABLE public.ledger ADD COLUMN leak public.secret",
                "public.ledger",
                LEDGER_EXTENDED)
            .refusedAs("TYPE_REFUSED", "leak"));
  }

  /** Commit order, flows and dedup a forged record cannot claim. */
  private static List<Attack> positions() {
    return List.of(
        Attack.of(
                "lsn-poisoning-FFFFFFFF/FFFFFFFF",
                envelope(ForgedRecordsIT.forgedLedger(REAL, -1L, "3").build()),
                POSITION_POISONED)
            .refusedAs("LSN_TOO_FAR_AHEAD"),
        Attack.of(
                "lsn-poisoning-through-an-invented-dataset",
                envelope(ForgedRecordsIT.forgedLedger(REAL, -1L, "3").dataset("invented").build()),
                POSITION_POISONED)
            .refusedAs("LSN_TOO_FAR_AHEAD"),
        Attack.of(
                "invented-dataset-when-dataset.ids-is-set",
                envelope(
                    ForgedRecordsIT.forgedLedger(REAL, 0x2000, "3").dataset("invented").build()),
                POSITION_POISONED)
            .with("dataset.ids", "flow")
            .refusedAs("FLOW_NOT_CONFIGURED"),
        Attack.of(
                "invented-source-when-source.ids-is-set",
                envelope(ForgedRecordsIT.forgedLedger("evil", 0x2000, "3").build()),
                POSITION_POISONED)
            .with("source.ids", REAL)
            .refusedAs("FLOW_NOT_CONFIGURED"),
        Attack.of(
                "an-applied-identity-with-another-body",
                envelope(ForgedRecordsIT.forgedLedger(REAL, 0x1000, "1").build()),
                LEDGER_FORGED)
            .refusedAs("DUPLICATE_IDENTITY_CONFLICT"));
  }

  /** Sizes the wire declares, chunk streams with no end, staging of flows that never complete. */
  private static List<Attack> barriers() {
    return List.of(
        new Attack("chunk-at-total-order-2^31-2", hugeTotalOrder(), LEDGER_FORGED)
            .refusedAs("MISSING_CHUNK"),
        new Attack("huge-declared-event-count", hugeEventCount(), LEDGER_FORGED)
            .refusedAs("MANIFEST_EVENT_COUNT_EXCEEDS_RANGE"),
        new Attack(
                "lone-chunk-0-holding-a-lock",
                loneChunkZero(),
                "SELECT (SELECT count(*) FROM pg_locks WHERE relation = 'public.ledger'::regclass"
                    + " AND mode = 'AccessExclusiveLock' AND pid <> pg_backend_pid())"
                    + " + (SELECT 1 - count(*) FROM ledger WHERE tx = 1)"
                    + " + ("
                    + LEDGER_FORGED
                    + ")")
            .with("apply.stall.timeout.ms", "2000")
            .settle(Duration.ofSeconds(5)),
        new Attack(
            "junk-chunks-of-invented-flows",
            junkChunks(),
            "SELECT count(*) FROM trellara_sink.staged_chunks"));
  }

  private static Tx twoForgedRows(String source, String tx) {
    return ForgedRecordsIT.forgedLedger(source, 0x2000, tx)
        .insert(LEDGER, key("tx", "integer", "901"), val("moves", "integer", "1"));
  }

  /**
   * DeclaredSizesTest's barrier on the strict topic: one small chunk at total_order 2^31-2, its
   * manifest declaring 2^31-2 events (the other entry's chunk never comes).
   */
  private static List<Forged> hugeTotalOrder() {
    Barriers b = Barriers.strictChunked(twoForgedRows("evil", "2").build(), 1);
    PartitionChunk real = b.chunks().get(1);
    b =
        b.withChunk(
            1,
            real.toBuilder()
                .setChanges(
                    0,
                    real.getChanges(0).toBuilder()
                        .setTotalOrder(HUGE)
                        .setTableOrder(HUGE)
                        .setIdempotencyKey(
                            EventKey.of(
                                real.getSourceId(),
                                real.getCommitLsn(),
                                real.getTransactionId(),
                                HUGE)))
                .build());
    PartitionChunk chunk = b.chunks().get(1);
    Barriers forged =
        b.withManifest(
            m ->
                m.setGlobalEventCount(HUGE)
                    .clearPartitions()
                    .addPartitions(
                        ManifestPartition.newBuilder()
                            .setId(0)
                            .setEventCount(HUGE - 1)
                            .setFirstTotalOrder(1)
                            .setLastTotalOrder(HUGE - 1))
                    .addPartitions(
                        ManifestPartition.newBuilder()
                            .setId(chunk.getPartitionId())
                            .setEventCount(1)
                            .setFirstTotalOrder(HUGE)
                            .setLastTotalOrder(HUGE)
                            .setChecksum(chunk.getChecksum())));
    List<Barriers.Published> records = new ArrayList<>();
    records.add(forged.chunkMessages().get(1));
    records.addAll(forged.closing());
    if (TrellaraCodec.encodeWithoutValidation(chunk).bytes().length > 1024) {
      throw new IllegalStateException("the forged chunk should be small");
    }
    return Forged.barrier(records);
  }

  /** A whole barrier whose manifest and marker declare 2^31-2 events for the two it carries. */
  private static List<Forged> hugeEventCount() {
    Barriers b =
        Barriers.strictChunked(twoForgedRows("evil", "2").build(), 1)
            .withManifest(
                m ->
                    m.setGlobalEventCount(HUGE)
                        .setPartitions(0, m.getPartitions(0).toBuilder().setEventCount(HUGE - 1)));
    return Forged.barrier(b.all());
  }

  /** Chunk 0 of a streamed barrier (TRUNCATE ledger, then forged rows) and nothing after it. */
  private static List<Forged> loneChunkZero() {
    Tx forged = Tx.tx("evil", 0x2000, "2").truncate(false, false, LEDGER);
    for (int tx = 900; tx < 904; tx++) {
      forged.insert(LEDGER, key("tx", "integer", "" + tx), val("moves", "integer", "1"));
    }
    return Forged.barrier(Barriers.strictChunked(forged.build(), 2).chunkMessages().subList(0, 1));
  }

  /** Chunks of five invented flows' transactions whose manifests never come. */
  private static List<Forged> junkChunks() {
    List<Barriers.Published> records = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      Barriers b =
          Barriers.strictChunked(twoForgedRows("junk-" + i, "2").dataset("junk-" + i).build(), 1);
      records.addAll(b.chunkMessages());
    }
    return Forged.barrier(records);
  }
}
