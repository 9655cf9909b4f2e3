package io.trellara.protocol.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.boundary.ChunkedBarrier;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.sample.SampleTransactions;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import java.util.List;
import org.junit.jupiter.api.Test;

class ViolationsTest {
  private static final TransactionEnvelope TX = SampleTransactions.envelope(4, true);

  @Test
  void collectingListsEveryBrokenRuleAndFailFastThrowsTheFirstOfThem() {
    TransactionEnvelope bad =
        TX.toBuilder()
            .setDatasetId("")
            .setCommitTimestampMs(0)
            .setChanges(1, TX.getChanges(1).toBuilder().setTableOrder(0))
            .build();
    Violations v = Violations.collecting();
    ProtocolValidator.validateEnvelope(bad, v);
    assertThat(v.rules())
        .containsExactlyInAnyOrder(
            ProtocolRule.REQUIRED_FIELD_BLANK,
            ProtocolRule.COMMIT_TIMESTAMP_NOT_POSITIVE,
            ProtocolRule.TABLE_ORDER_ZERO);
    assertThat(v.all())
        .extracting(ProtocolViolationException::field)
        .containsExactly("dataset_id", "commit_timestamp_ms", "changes[1].table_order");
    assertThatThrownBy(() -> ProtocolValidator.validateEnvelope(bad))
        .isInstanceOfSatisfying(
            ProtocolViolationException.class,
            e -> assertThat(e.rule()).isEqualTo(v.all().get(0).rule()));
  }

  /** An LSN that does not parse is not compared: only the rule its own text breaks. */
  @Test
  void aCheckThatNeedsABrokenValueIsNotMade() {
    Violations v = Violations.collecting();
    ProtocolValidator.validateEnvelope(TX.toBuilder().setCommitLsn("zz").build(), v);
    assertThat(v.rules())
        .contains(ProtocolRule.COMMIT_LSN_NOT_CANONICAL)
        .doesNotContain(ProtocolRule.COMMIT_LSN_ZERO, ProtocolRule.BEGIN_LSN_AFTER_COMMIT);
  }

  @Test
  void aValidMessageBreaksNothing() {
    Violations v = Violations.collecting();
    ProtocolValidator.validateEnvelope(TX, v);
    assertThat(v.isEmpty()).isTrue();
  }

  /**
   * A missing chunk is the barrier's only fault: the counts it leaves short are not judged without
   * it.
   */
  @Test
  void theBarrierOfAMissingChunkBreaksOnlyThatRule() {
    ChunkedBarrier.Barrier b = ChunkedBarrier.strictChunked(TX, 2);
    TransactionManifest m = TrellaraCodec.decodeManifest(b.manifest().bytes());
    TransactionCommitMarker k = TrellaraCodec.decodeCommitMarker(b.commitMarker().bytes());
    List<PartitionChunk> chunks =
        b.chunks().stream().skip(1).map(c -> TrellaraCodec.decodeChunk(c.bytes())).toList();
    Violations v = Violations.collecting();
    BarrierVerifier.verify(m, k, chunks, v);
    assertThat(v.rules()).containsExactly(ProtocolRule.MISSING_CHUNK);
  }
}
