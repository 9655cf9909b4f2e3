package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.v1.RelationId;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.ApplyResult;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import io.trellara.sink.postgres.settings.FlowBounds;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a forged but well-formed, correctly checksummed record can still do to the sink's dedup
 * records and positions, judged by SQL on a real target: an identity cannot be claimed by another
 * body, and a flow's position moves only with an applied transaction within the configured bounds.
 */
class ForgedPositionsTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  static final RelationId ACCOUNTS = rel("app", "accounts");
  static final String TOPIC = "trellara.flow.strict";

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec(
        "CREATE TABLE app.accounts (id int PRIMARY KEY, balance int NOT NULL)",
        "INSERT INTO app.accounts SELECT g, 100 FROM generate_series(1, 10) g");
  }

  private static TransactionApplier applier(FlowBounds bounds) {
    return new TransactionApplier(
        pg.connections(),
        RelationMapper.builder().allow(List.of("app.*")).build(),
        ApplyOptions.builder("s").flowBounds(bounds).build());
  }

  private static TransactionApplier applier() {
    return applier(FlowBounds.DEFAULT);
  }

  private static Tx insert(long lsn, int id, int balance) {
    return tx(lsn)
        .insert(
            ACCOUNTS,
            key("id", "integer", Integer.toString(id)),
            val("balance", "integer", "" + balance));
  }

  private static String accounts() {
    return pg.one("SELECT string_agg(id || '=' || balance, ',' ORDER BY id) FROM app.accounts");
  }

  private static String progress() {
    return pg.one("SELECT coalesce(max(next_offset)::text, 'none') FROM trellara_sink.progress");
  }

  private static String newestApplied() {
    return pg.one(
        "SELECT coalesce(max(commit_lsn)::text, 'none') FROM trellara_sink.applied_transactions");
  }

  /**
   * A forged envelope that borrows the identity of a real transaction not yet applied, arriving
   * first: it is applied as what it is (every other rule judges its body), and the real one, under
   * the same identity with another body, is refused by name rather than skipped: nothing of it is
   * applied, its offset is not recorded, so it is still in the topic for the operator, not lost.
   */
  @Test
  void aForgedEnvelopeWithARealIdentityFirstMakesTheRealOneFailClosedNotVanish() {
    try (TransactionApplier a = applier()) {
      a.apply(insert(0x20, 12, 999).at(TOPIC, 0, 5));
      assertThatThrownBy(() -> a.apply(insert(0x20, 11, 1).at(TOPIC, 0, 6)))
          .isInstanceOfSatisfying(
              ApplyException.class,
              e ->
                  assertThat(e.reason())
                      .isEqualTo(ApplyException.Reason.DUPLICATE_IDENTITY_CONFLICT))
          .hasMessageContaining("DUPLICATE_IDENTITY_CONFLICT")
          .hasMessageContaining("[event pg-test:0/20:32]")
          .hasMessageContaining("envelope:");
    }
    assertThat(pg.count("app.accounts")).isEqualTo(11);
    assertThat(pg.one("SELECT count(*) FROM app.accounts WHERE id = 11")).isEqualTo("0");
    assertThat(progress()).isEqualTo("5"); // the real record's offset was not passed
  }

  @Test
  void aDifferentBodyUnderAnAppliedIdentityIsRefusedAndTheSameBodyIsStillADuplicate() {
    Tx real = insert(0x20, 11, 1);
    try (TransactionApplier a = applier()) {
      a.apply(real.at(TOPIC, 0, 5));
      // a forged record reusing the identity to set every balance it can reach
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx(0x20)
                          .update(
                              ACCOUNTS,
                              null,
                              key("id", "integer", "1"),
                              val("balance", "integer", "0"))
                          .at(TOPIC, 0, 6)))
          .hasMessageContaining("DUPLICATE_IDENTITY_CONFLICT")
          .hasMessageContaining("[event pg-test:0/20:32]");
      assertThat(accounts()).startsWith("1=100,").contains("11=1");
      assertThat(progress()).isEqualTo("5");
      // the real record delivered again (a restart): a duplicate, skipped silently as before
      ApplyResult again = a.apply(insert(0x20, 11, 1).at(TOPIC, 0, 6));
      assertThat(again.duplicates()).hasSize(1);
      assertThat(again.applied()).isEmpty();
    }
    assertThat(progress()).isEqualTo("6");
    assertThat(pg.one("SELECT body_digest FROM trellara_sink.applied_transactions"))
        .startsWith("envelope:");
  }

  /** Two bodies of one identity in one batch (one group): the second is refused, the group too. */
  @Test
  void twoBodiesOfOneIdentityInOneBatchAreRefused() {
    try (TransactionApplier a = applier()) {
      assertThatThrownBy(
              () ->
                  a.apply(
                      List.of(
                          insert(0x20, 11, 1).at(TOPIC, 0, 5),
                          insert(0x20, 12, 2).at(TOPIC, 0, 6))))
          .hasMessageContaining("DUPLICATE_IDENTITY_CONFLICT");
    }
    assertThat(pg.count("app.accounts")).isEqualTo(10);
    assertThat(newestApplied()).isEqualTo("none");
  }

  /**
   * A target whose dedup records predate the digest: the migration adds the column, old rows match
   * any body.
   */
  @Test
  void aRecordAppliedBeforeTheDigestColumnExistedIsStillADuplicate() throws Exception {
    try (TransactionApplier a = applier()) {
      a.apply(insert(0x20, 11, 1).at(TOPIC, 0, 5));
    }
    pg.exec("ALTER TABLE trellara_sink.applied_transactions DROP COLUMN body_digest");
    new io.trellara.sink.postgres.checkpoint.CheckpointStore(pg.connections()).createSchema();
    try (TransactionApplier a = applier()) {
      assertThat(
              pg.one(
                  "SELECT count(*) FROM trellara_sink.applied_transactions WHERE body_digest IS NULL"))
          .isEqualTo("1");
      assertThat(a.apply(insert(0x20, 11, 1).at(TOPIC, 0, 6)).duplicates()).hasSize(1);
    }
  }

  /**
   * The LSN poisoning of the finding: one record at FFFFFFFF/FFFFFFFF would make every later real
   * transaction OUT_OF_ORDER for good. Refused; no position moves; the next real one applies.
   */
  @Test
  void aCommitLsnFarAheadOfTheFlowIsRefusedAndMovesNoPosition() {
    try (TransactionApplier a = applier()) {
      a.apply(insert(0x10, 11, 1).at(TOPIC, 0, 1));
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx("pg-test", 0xFFFFFFFF_FFFFFFFFL, "99")
                          .insert(
                              ACCOUNTS, key("id", "integer", "12"), val("balance", "integer", "6"))
                          .at(TOPIC, 0, 2)))
          .isInstanceOfSatisfying(
              ApplyException.class,
              e -> assertThat(e.reason()).isEqualTo(ApplyException.Reason.LSN_TOO_FAR_AHEAD))
          .hasMessageContaining("FFFFFFFF/FFFFFFFF")
          .hasMessageContaining("order.max.lsn.advance.bytes")
          .hasMessageContaining("[event pg-test:FFFFFFFF/FFFFFFFF:99]");
      assertThat(newestApplied()).isEqualTo("0/10");
      assertThat(progress()).isEqualTo("1");
      a.apply(insert(0x20, 13, 3).at(TOPIC, 0, 3));
    }
    assertThat(accounts()).contains("11=1").contains("13=3").doesNotContain("12=");
    assertThat(newestApplied()).isEqualTo("0/20");
  }

  /**
   * An invented dataset of a known source starts no fresh, unbounded order: its bound is the
   * source's.
   */
  @Test
  void theFirstTransactionOfAnInventedFlowIsBoundedByItsSourcesNewestPosition() {
    long mib = 1 << 20;
    try (TransactionApplier a = applier(new FlowBounds(mib, Set.of(), Set.of()))) {
      a.apply(insert(0x10, 11, 1).at(TOPIC, 0, 1));
      assertThatThrownBy(
              () -> a.apply(insert(0x10 + 2 * mib, 12, 666).dataset("invented").at(TOPIC, 0, 2)))
          .hasMessageContaining("LSN_TOO_FAR_AHEAD")
          .hasMessageContaining("any flow of its source");
      // within the bound, the same flow and a new one are applied
      a.apply(insert(0x10 + mib / 2, 13, 3).dataset("second").at(TOPIC, 0, 3));
      a.apply(insert(0x10 + mib, 14, 4).at(TOPIC, 0, 4));
    }
    assertThat(
            pg.one(
                "SELECT count(*) FROM trellara_sink.applied_transactions WHERE dataset_id = 'invented'"))
        .isEqualTo("0");
    assertThat(accounts()).contains("13=3").contains("14=4").doesNotContain("12=");
  }

  @Test
  void aFlowTheOperatorDidNotNameIsRefused() {
    FlowBounds named =
        new FlowBounds(FlowBounds.DEFAULT_MAX_LSN_ADVANCE_BYTES, Set.of("pg-test"), Set.of("flow"));
    try (TransactionApplier a = applier(named)) {
      a.apply(insert(0x10, 11, 1).at(TOPIC, 0, 1));
      assertThatThrownBy(
              () ->
                  a.apply(
                      tx("intruder", 0x20, "7")
                          .insert(
                              ACCOUNTS, key("id", "integer", "12"), val("balance", "integer", "0"))
                          .at(TOPIC, 0, 2)))
          .isInstanceOfSatisfying(
              ApplyException.class,
              e -> assertThat(e.reason()).isEqualTo(ApplyException.Reason.FLOW_NOT_CONFIGURED))
          .hasMessageContaining("[event intruder:0/20:7]");
      assertThatThrownBy(() -> a.apply(insert(0x30, 13, 0).dataset("other").at(TOPIC, 0, 3)))
          .hasMessageContaining("FLOW_NOT_CONFIGURED");
    }
    assertThat(accounts()).contains("11=1").doesNotContain("12=").doesNotContain("13=");
    assertThat(progress()).isEqualTo("1");
    assertThat(newestApplied()).isEqualTo("0/10");
  }

  /**
   * The same for a barrier: the dedup record names the manifest's checksum, so a forged barrier
   * under the identity of an applied one (streamed here, chunk by chunk) is refused at its commit
   * marker, rolled back, and the applied rows stay; the real barrier delivered again is a
   * duplicate.
   */
  @Test
  void aForgedBarrierUnderAnAppliedIdentityIsRefusedAndTheRealOneAgainIsADuplicate() {
    Tx real = tx(0x100);
    Tx forged = tx(0x100);
    for (int id = 11; id <= 14; id++) {
      real.insert(ACCOUNTS, key("id", "integer", "" + id), val("balance", "integer", "1"));
      forged.insert(
          ACCOUNTS, key("id", "integer", "" + (id + 10)), val("balance", "integer", "666"));
    }
    Barriers realBarrier = Barriers.strictChunked(real.build(), 2);
    Barriers forgedBarrier = Barriers.strictChunked(forged.build(), 2);
    try (TransactionApplier a = applier();
        io.trellara.sink.engine.SinkEngine p =
            new io.trellara.sink.engine.SinkEngine(a, null, 1000, 64 << 20, 0)) {
      Feed feed = new Feed();
      Feed.oneByOne(p, feed.inputs(realBarrier.all()));
      assertThat(pg.count("app.accounts")).isEqualTo(14);
      assertThatThrownBy(() -> Feed.oneByOne(p, feed.inputs(forgedBarrier.all())))
          .hasMessageContaining("DUPLICATE_IDENTITY_CONFLICT")
          .hasMessageContaining("manifest:")
          .hasMessageContaining("[event pg-test:0/100:256]");
    }
    try (TransactionApplier a = applier();
        io.trellara.sink.engine.SinkEngine p =
            new io.trellara.sink.engine.SinkEngine(a, null, 1000, 64 << 20, 0)) {
      Feed.oneByOne(p, new Feed().inputs(realBarrier.all()));
      assertThat(a.metrics().duplicatesSkipped()).isEqualTo(1);
    }
    assertThat(accounts()).contains("14=1").doesNotContain("666");
    assertThat(pg.one("SELECT body_digest FROM trellara_sink.applied_transactions"))
        .isEqualTo(
            "manifest:"
                + io.trellara.protocol.codec.Checksums.hex(realBarrier.manifest().getChecksum()));
  }
}
