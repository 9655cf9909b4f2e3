package io.trellara.identity;

import io.trellara.identity.codec.Codecs;
import io.trellara.identity.codec.FieldCodec;
import java.util.List;

/**
 * Entry point: resolve a relation's identity columns to a {@link KeyEncoder} once (when the
 * Relation message arrives), then encode every row with it.
 */
public final class RowIdentityEncoder {
  /** At most this many fields per identity (and per nested tuple). */
  public static final int MAX_FIELDS = 1024;

  private RowIdentityEncoder() {}

  /**
   * @throws RowIdentityException naming the column position and type if any column has no encoder,
   *     or if there are no columns or more than {@link #MAX_FIELDS}
   */
  public static KeyEncoder forColumns(RowIdentityDomain domain, List<ColumnType> columns) {
    if (columns.isEmpty() || columns.size() > MAX_FIELDS) {
      throw new RowIdentityException(
          "an identity has 1 to " + MAX_FIELDS + " fields, not " + columns.size());
    }
    FieldCodec[] codecs = new FieldCodec[columns.size()];
    for (int i = 0; i < codecs.length; i++) {
      try {
        codecs[i] = Codecs.resolve(columns.get(i));
      } catch (RowIdentityException e) {
        throw e.inField(i, Codecs.describe(columns.get(i)));
      }
    }
    return new KeyEncoder(domain, codecs);
  }
}
