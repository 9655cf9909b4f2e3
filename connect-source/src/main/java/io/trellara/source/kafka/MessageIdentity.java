package io.trellara.source.kafka;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.Snapshots;
import io.trellara.protocol.codec.KindDetector;
import java.io.IOException;

/**
 * Whose transaction a record on a Trellara topic belongs to, read from the message's top-level
 * fields alone (no checksum, no validation, no copy of its changes): {@code source_id} (tag 2),
 * {@code transaction_id} (tag 5) and the commit LSN (tag 7 of an envelope, tag 6 of a chunk,
 * manifest or commit marker). Used on a topic's tail only; what is published or applied is always
 * decoded whole.
 */
record MessageIdentity(MessageKind kind, String sourceId, String transactionId, String commitLsn) {

  /** Envelopes and commit markers close their transaction. */
  boolean closes() {
    return kind == MessageKind.ENVELOPE || kind == MessageKind.COMMIT_MARKER;
  }

  boolean isSnapshot() {
    return Snapshots.isSnapshot(transactionId);
  }

  /**
   * The identity of {@code value} of kind {@code kind} (null: told from the bytes); null when the
   * bytes are not a Trellara message.
   */
  static MessageIdentity read(MessageKind kind, byte[] value) {
    if (value == null) {
      return null;
    }
    MessageKind k = kind != null ? kind : KindDetector.detect(value).orElse(null);
    if (k == null) {
      return null;
    }
    int commitTag = k == MessageKind.ENVELOPE ? 7 : 6;
    String source = null;
    String xid = null;
    String commit = null;
    try {
      CodedInputStream in = CodedInputStream.newInstance(value);
      while (!in.isAtEnd()) {
        int tag = in.readTag();
        int field = WireFormat.getTagFieldNumber(tag);
        boolean text = WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED;
        if (text && field == 2) {
          source = in.readStringRequireUtf8();
        } else if (text && field == 5) {
          xid = in.readStringRequireUtf8();
        } else if (text && field == commitTag) {
          commit = in.readStringRequireUtf8();
        } else if (!in.skipField(tag)) {
          break;
        }
      }
    } catch (IOException e) {
      return null;
    }
    return source == null || xid == null || commit == null
        ? null
        : new MessageIdentity(k, source, xid, commit);
  }
}
