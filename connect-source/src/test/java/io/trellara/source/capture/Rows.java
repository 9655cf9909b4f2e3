package io.trellara.source.capture;

import io.trellara.protocol.SchemaVersions;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnDefinition;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.RowImage;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TransactionEnvelope;

/**
 * Reads positional row images by column name, through the change's schema version, for assertions.
 */
public final class Rows {
  private Rows() {}

  public static SchemaVersion schema(TransactionEnvelope e, ChangeRecord c) {
    SchemaVersion v = SchemaVersions.of(c, e.getSchemaVersionsList());
    if (v == null) {
      throw new AssertionError(SchemaVersions.whyMissing(c, e.getSchemaVersionsList()));
    }
    return v;
  }

  public static ColumnDefinition definition(TransactionEnvelope e, ChangeRecord c, String name) {
    SchemaVersion v = schema(e, c);
    return v.getColumns(position(v, name));
  }

  public static ColumnValue column(
      TransactionEnvelope e, ChangeRecord c, RowImage image, String name) {
    return image.getColumns(position(schema(e, c), name));
  }

  private static int position(SchemaVersion v, String name) {
    for (int i = 0; i < v.getColumnsCount(); i++) {
      if (v.getColumns(i).getName().equals(name)) {
        return i;
      }
    }
    throw new AssertionError("no column " + name + " in " + v);
  }
}
