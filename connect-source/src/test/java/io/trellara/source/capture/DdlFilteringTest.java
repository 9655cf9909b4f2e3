package io.trellara.source.capture;

import static io.trellara.source.capture.SyntheticStream.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.validation.ProtocolValidator;
import io.trellara.source.capture.CaptureTestSupport.EnvelopeCollector;
import io.trellara.source.capture.ddl.CapturedTables;
import io.trellara.source.capture.ddl.OwningRelation;
import io.trellara.source.pgoutput.PgOutputMessage;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The source publishes only DDL of its captured, non-temporary relations, and only with DDL capture
 * on.
 */
class DdlFilteringTest {

  private static final long ORDERS = 16400;
  private static final long OTHER = 16600;

  @TempDir Path spill;

  private final EnvelopeCollector collector = new EnvelopeCollector();

  private TransactionAssembler assembler(CaptureSettings settings) {
    return new TransactionAssembler(CaptureTestSupport.IDENTITY, settings, collector);
  }

  private CaptureSettings defaults() {
    return CaptureSettings.defaults(spill);
  }

  private static String ddlJson(String tag, String relations, boolean temporary) {
    return "{\"command_tag\":\""
        + tag
        + "\",\"statement\":\""
        + tag
        + " ...\",\"search_path\":\"public\","
        + "\"relations\":\""
        + relations.replace("\\", "\\\\").replace("\"", "\\\"")
        + "\",\"temporary\":\""
        + temporary
        + "\"}";
  }

  private static PgOutputMessage ddl(String tag, String relations) {
    return SyntheticStream.ddl(0, ddlJson(tag, relations, false));
  }

  private static void feed(TransactionAssembler a, PgOutputMessage... messages) {
    for (PgOutputMessage m : messages) {
      a.accept(m, 0x100);
    }
  }

  private TransactionEnvelope onlyEnvelope() {
    assertThat(collector.envelopes).hasSize(1);
    TransactionEnvelope e = collector.envelopes.get(0);
    ProtocolValidator.validateEnvelope(e);
    return e;
  }

  @Test
  void uncapturedAndTemporaryDdlIsDroppedWithoutTakingATotalOrderSlot() {
    try (TransactionAssembler a = assembler(defaults())) {
      feed(
          a,
          relation(0, ORDERS, "orders", 'd', "id:23:k"),
          begin(0x2000, 42),
          insert(0, ORDERS, "1"),
          ddl("CREATE INDEX", "\"public\".\"elsewhere\":16700"),
          SyntheticStream.ddl(0, ddlJson("CREATE TABLE", "\"pg_temp_3\".\"t_tmp\":16800", true)),
          ddl("GRANT", ""),
          ddl("ALTER TABLE", "\"public\".\"orders\":" + ORDERS),
          insert(0, ORDERS, "2"),
          commit(0x2000));
      assertThat(a.ddlEventsDropped()).isEqualTo(3);
    }
    TransactionEnvelope e = onlyEnvelope();
    assertThat(e.getChangesList()).extracting(ChangeRecord::getTotalOrder).containsExactly(1L, 3L);
    assertThat(e.getDdlEventsList()).extracting(DdlEvent::getTotalOrder).containsExactly(2L);
    assertThat(e.getDdlEvents(0).getRelation())
        .isEqualTo(
            RelationId.newBuilder()
                .setSchema("public")
                .setTable("orders")
                .setSourceOid((int) ORDERS)
                .build());
  }

  @Test
  void aTransactionWhoseOnlyDdlIsDroppedIsAnEmptyCommit() {
    try (TransactionAssembler a = assembler(defaults())) {
      feed(
          a,
          begin(0x2000, 42),
          ddl("CREATE TABLE", "\"other_schema\".\"x\":16900"),
          commit(0x2000));
      assertThat(a.ddlEventsDropped()).isEqualTo(1);
    }
    assertThat(collector.envelopes).isEmpty();
    assertThat(collector.emptyCommits).containsExactly(42L);
  }

  @Test
  void aStatementOnSeveralRelationsIsPublishedForItsFirstCapturedOne() {
    try (TransactionAssembler a = assembler(defaults())) {
      feed(
          a,
          relation(0, ORDERS, "orders", 'd', "id:23:k"),
          begin(0x2000, 42),
          ddl("DROP TABLE", "\"public\".\"elsewhere\":16700,\"public\".\"orders\":" + ORDERS),
          commit(0x2000));
      assertThat(a.ddlEventsDropped()).isZero();
    }
    assertThat(onlyEnvelope().getDdlEvents(0).getRelation().getTable()).isEqualTo("orders");
  }

  @Test
  void aDroppedObjectNamedWithoutOidTakesTheOidCaptureKnows() {
    try (TransactionAssembler a = assembler(defaults())) {
      feed(
          a,
          relation(0, ORDERS, "orders", 'd', "id:23:k"),
          begin(0x2000, 42),
          ddl("ALTER TABLE", "\"public\".\"orders\":0"),
          commit(0x2000));
    }
    assertThat(onlyEnvelope().getDdlEvents(0).getRelation().getSourceOid()).isEqualTo((int) ORDERS);
  }

  @Test
  void theTablesOfThePublicationCountBeforeTheySendAChangeAndARenameStillMatchesByOid() {
    CapturedTables published =
        new CapturedTables(
            false, Set.of("audit"), List.of(new OwningRelation("public", "orders", ORDERS)));
    try (TransactionAssembler a = assembler(defaults().withCapturedTables(published))) {
      feed(
          a,
          begin(0x2000, 42),
          ddl("CREATE INDEX", "\"public\".\"orders\":" + ORDERS),
          ddl("ALTER TABLE", "\"public\".\"orders_renamed\":" + ORDERS),
          ddl("CREATE TABLE", "\"audit\".\"trail\":17000"),
          ddl("CREATE TABLE", "\"public\".\"orders\":" + OTHER),
          commit(0x2000));
      assertThat(a.ddlEventsDropped())
          .as("same name, another OID: a new table, not the published one")
          .isEqualTo(1);
    }
    assertThat(onlyEnvelope().getDdlEventsList())
        .extracting(d -> d.getRelation().getTable())
        .containsExactly("orders", "orders_renamed", "trail");
  }

  @Test
  void withDdlCaptureDisabledEvenDdlOfACapturedTableIsDropped() {
    try (TransactionAssembler a = assembler(defaults().withDdlCapture(false))) {
      feed(
          a,
          relation(0, ORDERS, "orders", 'd', "id:23:k"),
          begin(0x2000, 42),
          insert(0, ORDERS, "1"),
          ddl("ALTER TABLE", "\"public\".\"orders\":" + ORDERS),
          SyntheticStream.ddl(0, "not even json: ignored unread"),
          commit(0x2000));
      assertThat(a.ddlEventsDropped()).isEqualTo(2);
    }
    TransactionEnvelope e = onlyEnvelope();
    assertThat(e.getDdlEventsCount()).isZero();
    assertThat(e.getChangesList()).extracting(ChangeRecord::getTotalOrder).containsExactly(1L);
  }

  @Test
  void aMessageOfAnOlderTriggerThatNamesNoRelationIsDropped() {
    try (TransactionAssembler a = assembler(defaults())) {
      feed(
          a,
          relation(0, ORDERS, "orders", 'd', "id:23:k"),
          begin(0x2000, 42),
          insert(0, ORDERS, "1"),
          SyntheticStream.ddl(
              0, "{\"command_tag\":\"ALTER TABLE\",\"object_identity\":\"public.orders\"}"),
          commit(0x2000));
      assertThat(a.ddlEventsDropped()).isEqualTo(1);
    }
    assertThat(onlyEnvelope().getDdlEventsCount()).isZero();
  }

  @Test
  void aSpilledStreamedTransactionKeepsTheSameDecisionsAndRelation() {
    try (TransactionAssembler a = assembler(defaults().withSpillThresholdBytes(0))) {
      feed(
          a,
          relation(0, ORDERS, "orders", 'd', "id:23:k"),
          streamStart(500, true),
          insert(500, ORDERS, "1"),
          SyntheticStream.ddl(
              500, ddlJson("CREATE INDEX", "\"public\".\"elsewhere\":16700", false)),
          SyntheticStream.ddl(
              500, ddlJson("ALTER TABLE", "\"public\".\"orders\":" + ORDERS, false)),
          streamStop(),
          streamCommit(500, 0x6000));
      assertThat(a.ddlEventsDropped()).isEqualTo(1);
      assertThat(a.spilledTransactions()).isEqualTo(1);
    }
    TransactionEnvelope e = onlyEnvelope();
    assertThat(e.getDdlEventsList()).extracting(DdlEvent::getTotalOrder).containsExactly(2L);
    assertThat(e.getDdlEvents(0).getRelation().getTable()).isEqualTo("orders");
  }
}
