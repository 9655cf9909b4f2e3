package io.trellara.sink.postgres.snapshot;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.SchemaVersion;
import java.sql.SQLException;
import java.util.List;

/** What a per-table snapshot load writes its rows with (the apply package's change writer). */
public interface RowWriter {
  /** Writes changes and DDL events of the transaction in hand, in total order. */
  void write(List<SchemaVersion> schemas, List<ChangeRecord> changes, List<DdlEvent> ddl)
      throws SQLException;

  /** Writes what is pending and ends an open COPY: the session can run other statements. */
  void flush() throws SQLException;
}
