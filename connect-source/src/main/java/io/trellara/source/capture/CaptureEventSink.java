package io.trellara.source.capture;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;

/** Receives the events of a {@link CapturedTransaction}, in total_order, one at a time. */
public interface CaptureEventSink {

  /**
   * A row change (insert, update, delete).
   *
   * @param relation the schema version the change was captured under (its {@code schemaVersion()}
   *     belongs in the envelope's or chunk's schema_versions)
   */
  void onChange(ChangeRecord change, RelationSchema relation);

  /**
   * A truncate; {@code relations} are the schema versions of every truncated relation, the record's
   * first.
   */
  default void onTruncate(ChangeRecord change, RelationSchema[] relations) {
    onChange(change, relations[0]);
  }

  /** A DDL event, in the same total_order space as the changes. */
  void onDdl(DdlEvent ddl);

  /**
   * A DDL event and the schema versions it leaves its captured tables in ({@code relations}, from
   * the trigger's description; often empty), which belong in the message that carries it so the
   * sink can evolve the target in the DDL's own transaction. By default the versions are not
   * carried.
   */
  default void onDdl(DdlEvent ddl, RelationSchema[] relations) {
    onDdl(ddl);
  }
}
