package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.nul;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.row;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.ReplicaIdentity;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Rows of tables routed by a non-key ownership column (docs/boundary-modes.md): the source table's
 * replica identity is FULL, or USING INDEX on an index holding the primary key and the ownership
 * column, so its schema versions flag no key, or more columns than the target's primary key. The
 * sink still finds each row by the target's own primary key.
 */
class ReplicaIdentityApplyTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  static final RelationId ACCOUNT = rel("app", "account");

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec(
        "CREATE TABLE app.account (id int PRIMARY KEY, tenant_id int, balance bigint)",
        "INSERT INTO app.account VALUES (1, 10, 100), (2, 20, 200), (3, NULL, 300)");
  }

  private static TransactionApplier applier() {
    return new TransactionApplier(
        pg.connections(), RelationMapper.identity(), ApplyOptions.builder("s").build());
  }

  @Test
  void appliesUsingIndexRowsWhoseKeyImageHoldsThePrimaryKeyAndTheOwnershipColumn() {
    try (TransactionApplier a = applier()) {
      a.apply(
          tx(0x10)
              .identity(ReplicaIdentity.REPLICA_IDENTITY_INDEX)
              .insert(
                  ACCOUNT,
                  key("id", "integer", "4"),
                  key("tenant_id", "integer", "40"),
                  val("balance", "bigint", "400"))
              // no old key: the index columns did not change
              .update(
                  ACCOUNT,
                  null,
                  key("id", "integer", "1"),
                  key("tenant_id", "integer", "10"),
                  val("balance", "bigint", "150"))
              // the ownership column changed: the old key image holds both index columns
              .update(
                  ACCOUNT,
                  row(key("id", "integer", "2"), key("tenant_id", "integer", "20")),
                  key("id", "integer", "2"),
                  key("tenant_id", "integer", "21"),
                  val("balance", "bigint", "210"))
              // a delete's key image: the index columns, the others null (as pgoutput sends them)
              .delete(
                  ACCOUNT,
                  key("id", "integer", "4"),
                  key("tenant_id", "integer", "40"),
                  nul("balance", "bigint"))
              .source());
    }
    assertThat(pg.rows("SELECT id, tenant_id, balance FROM app.account ORDER BY id"))
        .containsExactly(
            List.of("1", "10", "150"), List.of("2", "21", "210"), Arrays.asList("3", null, "300"));
  }

  @Test
  void appliesFullIdentityRowsByTheTargetPrimaryKeyWithANullOwnershipValue() {
    try (TransactionApplier a = applier()) {
      a.apply(
          tx(0x10)
              .identity(ReplicaIdentity.REPLICA_IDENTITY_FULL)
              .insert(
                  ACCOUNT,
                  val("id", "integer", "5"),
                  nul("tenant_id", "integer"),
                  val("balance", "bigint", "500"))
              .update(
                  ACCOUNT,
                  row(
                      val("id", "integer", "3"),
                      nul("tenant_id", "integer"),
                      val("balance", "bigint", "300")),
                  val("id", "integer", "3"),
                  val("tenant_id", "integer", "30"),
                  val("balance", "bigint", "330"))
              .delete(
                  ACCOUNT,
                  val("id", "integer", "1"),
                  val("tenant_id", "integer", "10"),
                  val("balance", "bigint", "100"))
              .source());
    }
    assertThat(pg.rows("SELECT id, tenant_id, balance FROM app.account ORDER BY id"))
        .containsExactly(
            List.of("2", "20", "200"), List.of("3", "30", "330"), Arrays.asList("5", null, "500"));
  }

  @Test
  void refusesAnIndexKeyThatLacksTheTargetPrimaryKey() {
    var withoutPrimaryKey =
        tx(0x10)
            .identity(ReplicaIdentity.REPLICA_IDENTITY_INDEX)
            .delete(
                ACCOUNT,
                val("id", "integer", "1"),
                key("tenant_id", "integer", "10"),
                nul("balance", "bigint"))
            .unvalidated();
    try (TransactionApplier a = applier()) {
      assertThatThrownBy(() -> a.apply(SourceTransaction.withoutPosition(withoutPrimaryKey)))
          .isInstanceOf(ApplyException.class)
          .hasMessageContaining("KEY_COLUMNS_MISMATCH")
          .hasMessageContaining("\"tenant_id\"");
    }
    assertThat(pg.one("SELECT count(*) FROM app.account")).isEqualTo("3");
  }

  @Test
  void refusesExtraKeyFlagsUnderReplicaIdentityDefault() {
    var extraFlag =
        tx(0x10)
            .delete(
                ACCOUNT,
                key("id", "integer", "1"),
                key("tenant_id", "integer", "10"),
                nul("balance", "bigint"))
            .unvalidated();
    try (TransactionApplier a = applier()) {
      assertThatThrownBy(() -> a.apply(SourceTransaction.withoutPosition(extraFlag)))
          .isInstanceOf(ApplyException.class)
          .hasMessageContaining("KEY_COLUMNS_MISMATCH")
          .hasMessageContaining("\"tenant_id\"");
    }
    assertThat(pg.one("SELECT count(*) FROM app.account")).isEqualTo("3");
  }
}
