package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.RelationId;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.sink.postgres.apply.ChangeWriter;
import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.session.TargetSession;
import io.trellara.sink.postgres.settings.ApplyOptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The writer holds a bounded run of changes, whatever the size of the transaction fed to it event
 * by event.
 */
class ChangeWriterBoundTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  static final RelationId T = rel("app", "t");

  @BeforeEach
  void reset() {
    pg.reset();
    pg.exec("CREATE TABLE app.t (id int PRIMARY KEY, body text)");
  }

  private long write(TransactionEnvelope e, ChangeWriter[] out) throws Exception {
    try (TargetSession s = TargetSession.open(pg.connections())) {
      ChangeWriter w = new ChangeWriter(s, RelationMapper.identity(), ApplyOptions.defaults("s"));
      w.begin(e.getSourceId(), e.getDatasetId(), e.getCommitLsn(), e.getTransactionId());
      for (ChangeRecord c : e.getChangesList()) {
        w.change(c, e.getSchemaVersionsList());
      }
      w.flush();
      s.commit();
      out[0] = w;
      return w.inserted();
    }
  }

  @Test
  void aLongRunIsWrittenInPiecesOfAtMostMaxRunRows() throws Exception {
    Tx t = tx(0x100);
    for (int i = 1; i <= 45_000; i++) {
      t.insert(T, key("id", "integer", Integer.toString(i)), val("body", "text", "x"));
    }
    ChangeWriter[] w = new ChangeWriter[1];
    assertThat(write(t.build(), w)).isEqualTo(45_000);
    assertThat(w[0].longestRun()).isEqualTo(ChangeWriter.MAX_RUN_ROWS);
    assertThat(pg.count("app.t")).isEqualTo(45_000);
  }

  @Test
  void wideRowsAreWrittenOnceTheRunHoldsMaxRunBytes() throws Exception {
    Tx t = tx(0x100);
    String body = "y".repeat(4096);
    for (int i = 1; i <= 3_000; i++) {
      t.insert(T, key("id", "integer", Integer.toString(i)), val("body", "text", body));
    }
    ChangeWriter[] w = new ChangeWriter[1];
    assertThat(write(t.build(), w)).isEqualTo(3_000);
    assertThat(w[0].longestRun())
        .isLessThan(3_000)
        .isGreaterThanOrEqualTo(ChangeWriter.MAX_RUN_BYTES / 8192);
    assertThat(pg.one("SELECT sum(length(body)) FROM app.t"))
        .isEqualTo(Long.toString(3_000L * 4096));
  }
}
