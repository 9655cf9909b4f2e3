package io.trellara.sink.postgres.apply;

import io.trellara.sink.postgres.names.QualifiedName;
import io.trellara.sink.postgres.session.SessionCache;
import java.util.HashMap;
import java.util.Map;

/**
 * Per target table of a session: the fingerprint of the schema version its rows were last prepared
 * for, and how that version's positional rows map onto it.
 */
final class ShapeCache implements SessionCache {
  final Map<QualifiedName, String> preparedFingerprints = new HashMap<>();
  final Map<QualifiedName, RowLayout> layouts = new HashMap<>();

  @Override
  public void forgetAll() {
    preparedFingerprints.clear();
    layouts.clear();
  }

  @Override
  public void forget(Object table) {
    preparedFingerprints.remove(table);
    layouts.remove(table);
  }
}
