package io.trellara.cli;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import io.trellara.protocol.BoundaryVocabulary;
import io.trellara.protocol.EventCounts;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.Checksums;
import io.trellara.protocol.codec.KindDetector;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.ProtocolViolationException;

/** The verdict on one message's bytes, rendered as one JSON object. */
record MessageReport(String source, MessageKind kind, Message message, ProtocolViolationException violation) {

    static MessageReport of(String source, MessageKind kindOrNull, byte[] bytes) {
        MessageKind kind = kindOrNull != null ? kindOrNull : KindDetector.detect(bytes).orElse(MessageKind.ENVELOPE);
        try {
            return new MessageReport(source, kind, TrellaraCodec.decode(kind, bytes), null);
        } catch (ProtocolViolationException e) {
            return new MessageReport(source, kind, null, e);
        }
    }

    boolean verified() {
        return violation == null;
    }

    /** Boundary in the wire vocabulary, and the operator counts line. */
    static String[] summary(Message m) {
        if (m instanceof TransactionEnvelope e) {
            return new String[] {BoundaryVocabulary.STRICT,
                    new EventCounts(e.getChangesCount(), e.getDdlEventsCount()).render()};
        }
        if (m instanceof PartitionChunk c) {
            return new String[] {wire(c.getBoundaryMode()),
                    new EventCounts(c.getChangesCount(), c.getDdlEventsCount()).render()};
        }
        if (m instanceof TransactionManifest t) {
            long ddl = t.getDdlEventCount();
            return new String[] {wire(t.getBoundaryMode()),
                    new EventCounts(t.getGlobalEventCount() - ddl, ddl).render()};
        }
        TransactionCommitMarker k = (TransactionCommitMarker) m;
        return new String[] {"commit barrier", "source_total=" + k.getGlobalEventCount()};
    }

    private static String wire(ManifestBoundaryMode mode) {
        return BoundaryVocabulary.of(mode);
    }

    String toJson(boolean withBody) {
        StringBuilder sb = new StringBuilder("{\"source\": ").append(Json.quote(source))
                .append(", \"kind\": ").append(Json.quote(kind.wireName()))
                .append(", \"verified\": ").append(verified());
        if (verified()) {
            String[] s = summary(message);
            sb.append(", \"boundary\": ").append(Json.quote(s[0]))
                    .append(", \"counts\": ").append(Json.quote(s[1]))
                    .append(", \"checksum\": ").append(Json.quote(Checksums.hex(checksumOf(message))));
            if (withBody) {
                sb.append(", \"message\": ").append(body(message));
            }
        } else {
            sb.append(", \"rule\": ").append(Json.quote(violation.rule().name()))
                    .append(", \"field\": ").append(Json.quote(violation.field()))
                    .append(", \"event_key\": ").append(Json.quote(violation.eventKey()))
                    .append(", \"error\": ").append(Json.quote(violation.getMessage()));
        }
        return sb.append('}').toString();
    }

    private static long checksumOf(Message m) {
        return (Long) m.getField(m.getDescriptorForType().findFieldByNumber(MessageKind.of(m).checksumTag()));
    }

    private static String body(Message m) {
        try {
            return JsonFormat.printer().preservingProtoFieldNames().print(m);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException(e);
        }
    }
}
