package io.trellara.sink.postgres.schema;

import io.trellara.sink.postgres.names.QualifiedName;
import io.trellara.sink.postgres.session.SessionCache;
import java.util.HashMap;
import java.util.Map;

/** The target tables a session has described (see {@link TargetTables#describe}). */
final class TableCache implements SessionCache {
  final Map<QualifiedName, TargetTable> tables = new HashMap<>();

  @Override
  public void forgetAll() {
    tables.clear();
  }

  @Override
  public void forget(Object table) {
    tables.remove(table);
  }
}
