package io.trellara.cli;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import io.trellara.protocol.BoundaryVocabulary;
import io.trellara.protocol.EventCounts;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.SchemaVersions;
import io.trellara.protocol.codec.Checksums;
import io.trellara.protocol.codec.KindDetector;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.ColumnState;
import io.trellara.protocol.v1.ColumnValue;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.RowImage;
import io.trellara.protocol.v1.SchemaVersion;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.protocol.verify.TransactionVerifier;
import java.util.ArrayList;
import java.util.List;

/**
 * The verdict on one message's bytes, every rule judged ({@link TransactionVerifier#check}),
 * rendered as one JSON object. {@code message} is null when the bytes themselves were refused.
 */
record MessageReport(
    String source, MessageKind kind, Message message, List<ProtocolViolationException> violations) {

  static MessageReport of(String source, MessageKind kindOrNull, byte[] bytes) {
    MessageKind kind =
        kindOrNull != null ? kindOrNull : KindDetector.detect(bytes).orElse(MessageKind.ENVELOPE);
    TransactionVerifier.Checked checked = TransactionVerifier.check(kind, bytes);
    return new MessageReport(source, kind, checked.message(), checked.violations());
  }

  boolean verified() {
    return violations.isEmpty();
  }

  TransactionVerifier.Checked checked() {
    return new TransactionVerifier.Checked(kind, message, violations);
  }

  /** The rules broken, comma-separated, in the order they were found. */
  String ruleNames() {
    return String.join(",", violations.stream().map(v -> v.rule().name()).distinct().toList());
  }

  /** Boundary in the wire vocabulary, and the operator counts line. */
  static String[] summary(Message m) {
    if (m instanceof TransactionEnvelope e) {
      return new String[] {
        BoundaryVocabulary.STRICT,
        new EventCounts(e.getChangesCount(), e.getDdlEventsCount()).render()
      };
    }
    if (m instanceof PartitionChunk c) {
      return new String[] {
        wire(c.getBoundaryMode()),
        new EventCounts(c.getChangesCount(), c.getDdlEventsCount()).render()
      };
    }
    if (m instanceof TransactionManifest t) {
      long ddl = t.getDdlEventCount();
      return new String[] {
        wire(t.getBoundaryMode()), new EventCounts(t.getGlobalEventCount() - ddl, ddl).render()
      };
    }
    TransactionCommitMarker k = (TransactionCommitMarker) m;
    return new String[] {"commit barrier", "source_total=" + k.getGlobalEventCount()};
  }

  private static String wire(ManifestBoundaryMode mode) {
    return BoundaryVocabulary.of(mode);
  }

  String toJson(boolean withBody) {
    StringBuilder sb =
        new StringBuilder("{\"source\": ")
            .append(Json.quote(source))
            .append(", \"kind\": ")
            .append(Json.quote(kind.wireName()))
            .append(", \"verified\": ")
            .append(verified());
    if (verified()) {
      String[] s = summary(message);
      sb.append(", \"boundary\": ")
          .append(Json.quote(s[0]))
          .append(", \"counts\": ")
          .append(Json.quote(s[1]))
          .append(", \"checksum\": ")
          .append(Json.quote(Checksums.hex(checksumOf(message))));
      if (withBody) {
        sb.append(", \"message\": ").append(body(message));
        List<SchemaVersion> schemas = schemaVersions(message);
        if (schemas != null) {
          sb.append(", \"rows\": ").append(rows(changes(message), schemas));
        }
      }
    } else {
      sb.append(", \"violations\": [");
      for (int i = 0; i < violations.size(); i++) {
        ProtocolViolationException v = violations.get(i);
        sb.append(i == 0 ? "" : ", ")
            .append("{\"rule\": ")
            .append(Json.quote(v.rule().name()))
            .append(", \"field\": ")
            .append(Json.quote(v.field()))
            .append(", \"event_key\": ")
            .append(Json.quote(v.eventKey()))
            .append(", \"error\": ")
            .append(Json.quote(v.getMessage()))
            .append('}');
      }
      sb.append(']');
    }
    return sb.append('}').toString();
  }

  private static long checksumOf(Message m) {
    return (Long)
        m.getField(m.getDescriptorForType().findFieldByNumber(MessageKind.of(m).checksumTag()));
  }

  private static List<SchemaVersion> schemaVersions(Message m) {
    if (m instanceof TransactionEnvelope e) {
      return e.getSchemaVersionsList();
    }
    return m instanceof PartitionChunk c ? c.getSchemaVersionsList() : null;
  }

  private static List<ChangeRecord> changes(Message m) {
    return m instanceof TransactionEnvelope e
        ? e.getChangesList()
        : ((PartitionChunk) m).getChangesList();
  }

  /**
   * The row images by column name: row images are positional, the names are their schema version's.
   * Per change: {@code {"total_order": n, "relation": "s.t", "before": {...}, "after": {...}}}, an
   * image as {@code {"column": "text" | null, ...}} (binary values as {@code "\\x<hex>"}) with the
   * columns the source did not send (unchanged TOAST, non-key columns of a key-only old image)
   * listed under {@code "(not sent)"}.
   */
  static String rows(List<ChangeRecord> changes, List<SchemaVersion> schemas) {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < changes.size(); i++) {
      ChangeRecord c = changes.get(i);
      sb.append(i == 0 ? "" : ", ")
          .append("{\"total_order\": ")
          .append(Long.toUnsignedString(c.getTotalOrder()))
          .append(", \"relation\": ")
          .append(Json.quote(c.getRelation().getSchema() + "." + c.getRelation().getTable()));
      SchemaVersion v = SchemaVersions.of(c, schemas);
      if (v != null) {
        if (c.hasBefore()) {
          sb.append(", \"before\": ");
          image(sb, c.getBefore(), v);
        }
        if (c.hasAfter()) {
          sb.append(", \"after\": ");
          image(sb, c.getAfter(), v);
        }
      }
      sb.append('}');
    }
    return sb.append(']').toString();
  }

  private static void image(StringBuilder sb, RowImage image, SchemaVersion v) {
    sb.append('{');
    List<String> notSent = new ArrayList<>();
    boolean first = true;
    for (int i = 0; i < image.getColumnsCount() && i < v.getColumnsCount(); i++) {
      ColumnValue value = image.getColumns(i);
      String name = v.getColumns(i).getName();
      if (value.getState() == ColumnState.COLUMN_STATE_UNCHANGED_TOAST) {
        notSent.add(name);
        continue;
      }
      sb.append(first ? "" : ", ").append(Json.quote(name)).append(": ");
      first = false;
      if (value.getState() != ColumnState.COLUMN_STATE_VALUE) {
        sb.append("null");
      } else if (value.getText().isEmpty() && !value.getBinary().isEmpty()) {
        sb.append(
            Json.quote(
                "\\x" + java.util.HexFormat.of().formatHex(value.getBinary().toByteArray())));
      } else {
        sb.append(Json.quote(value.getText()));
      }
    }
    if (!notSent.isEmpty()) {
      sb.append(first ? "" : ", ").append("\"(not sent)\": [");
      for (int i = 0; i < notSent.size(); i++) {
        sb.append(i == 0 ? "" : ", ").append(Json.quote(notSent.get(i)));
      }
      sb.append(']');
    }
    sb.append('}');
  }

  private static String body(Message m) {
    try {
      return JsonFormat.printer().preservingProtoFieldNames().print(m);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(e);
    }
  }
}
