package io.trellara.protocol.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import io.trellara.protocol.SchemaFingerprint;
import io.trellara.protocol.boundary.ChunkedBarrier;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.sample.SampleTransactions;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TransactionEnvelope;
import org.junit.jupiter.api.Test;

class SchemaFingerprintRuleTest {
  private static final TransactionEnvelope TX = SampleTransactions.envelope(4, true);

  private static SchemaVersion widenedWithOldFingerprint(SchemaVersion s) {
    return s.toBuilder().setColumns(1, s.getColumns(1).toBuilder().setTypeModifier(104)).build();
  }

  @Test
  void envelopeWithTheRealFingerprintIsAccepted() {
    assertThatCode(() -> ProtocolValidator.validateEnvelope(TX)).doesNotThrowAnyException();
  }

  @Test
  void envelopeWhoseSchemaVersionChangedUnderItsFingerprintIsRejectedNamingFieldAndTransaction() {
    TransactionEnvelope bad =
        TX.toBuilder()
            .addSchemaVersions(
                TX.getSchemaVersions(0).toBuilder()
                    .setFingerprint(TX.getSchemaVersions(0).getFingerprint())
                    .setRelation(TX.getSchemaVersions(0).getRelation().toBuilder().setTable("o2")))
            .build();
    assertThatThrownBy(() -> ProtocolValidator.validateEnvelope(bad))
        .isInstanceOfSatisfying(
            ProtocolViolationException.class,
            e -> {
              assertThat(e.rule()).isEqualTo(ProtocolRule.SCHEMA_FINGERPRINT_MISMATCH);
              assertThat(e.field()).isEqualTo("schema_versions[1].fingerprint");
              assertThat(e.eventKey()).isEqualTo("pg-orders:0/16B3748:771");
            })
        .hasMessageContaining("public.o2");
  }

  @Test
  void chunkWhoseSchemaVersionChangedUnderItsFingerprintIsRejected() {
    PartitionChunk chunk =
        TrellaraCodec.decodeChunk(ChunkedBarrier.strictChunked(TX, 2).chunks().get(0).bytes());
    PartitionChunk bad =
        chunk.toBuilder()
            .setSchemaVersions(0, widenedWithOldFingerprint(chunk.getSchemaVersions(0)))
            .build();
    assertThatCode(() -> ProtocolValidator.validateChunk(chunk)).doesNotThrowAnyException();
    assertThatThrownBy(() -> ProtocolValidator.validateChunk(bad))
        .isInstanceOfSatisfying(
            ProtocolViolationException.class,
            e -> {
              assertThat(e.rule()).isEqualTo(ProtocolRule.SCHEMA_FINGERPRINT_MISMATCH);
              assertThat(e.field()).isEqualTo("schema_versions[0].fingerprint");
            });
  }

  @Test
  void aVersionThatPassedVouchesOnlyForEqualCopiesOfItself() {
    PartitionChunk chunk =
        TrellaraCodec.decodeChunk(ChunkedBarrier.strictChunked(TX, 2).chunks().get(0).bytes());
    PartitionChunk again = TrellaraCodec.decodeChunk(chunk.toByteArray());
    assertThatCode(() -> ProtocolValidator.validateChunk(chunk)).doesNotThrowAnyException();
    assertThatCode(() -> ProtocolValidator.validateChunk(again)).doesNotThrowAnyException();
    // a repeated column name under the version's real fingerprint is refused every time it comes,
    // not only first
    SchemaVersion s = chunk.getSchemaVersions(0);
    SchemaVersion repeated =
        s.toBuilder()
            .setColumns(1, s.getColumns(1).toBuilder().setName(s.getColumns(0).getName()))
            .build();
    PartitionChunk bad =
        chunk.toBuilder()
            .setSchemaVersions(
                0, repeated.toBuilder().setFingerprint(SchemaFingerprint.of(repeated)))
            .build();
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> ProtocolValidator.validateChunk(bad))
          .isInstanceOfSatisfying(
              ProtocolViolationException.class,
              e -> assertThat(e.rule()).isEqualTo(ProtocolRule.COLUMN_NAME_DUPLICATE));
    }
  }

  @Test
  void aVersionCarryingUnknownFieldsIsCheckedButNeverRemembered() {
    PartitionChunk chunk =
        TrellaraCodec.decodeChunk(ChunkedBarrier.strictChunked(TX, 2).chunks().get(0).bytes());
    SchemaVersion s = chunk.getSchemaVersions(0);
    // the same version with an unknown field 99: a view of the whole record it came in, once
    // decoded
    SchemaVersion unknown =
        s.toBuilder()
            .setUnknownFields(
                UnknownFieldSet.newBuilder()
                    .addField(
                        99,
                        UnknownFieldSet.Field.newBuilder()
                            .addLengthDelimited(ByteString.copyFromUtf8("x"))
                            .build())
                    .build())
            .build();
    PartitionChunk carrying = chunk.toBuilder().setSchemaVersions(0, unknown).build();
    for (int i = 0; i < 2; i++) { // before and after the plain version is remembered
      assertThatCode(() -> ProtocolValidator.validateChunk(carrying)).doesNotThrowAnyException();
      assertThat(SchemaVersionRules.remembered(s.getFingerprint())).isNotSameAs(unknown);
      ProtocolValidator.validateChunk(chunk);
      assertThat(SchemaVersionRules.remembered(s.getFingerprint())).isEqualTo(s);
    }
  }
}
