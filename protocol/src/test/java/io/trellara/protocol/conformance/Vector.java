package io.trellara.protocol.conformance;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.validation.ProtocolRule;
import java.util.List;

/** One conformance vector: messages in stream order and the verdict a correct consumer reaches. */
public record Vector(String name, ProtocolRule expectedRule, String description, List<Part> messages) {

    /** A message of a vector: its kind and its exact bytes. */
    public record Part(MessageKind kind, byte[] bytes) {
    }

    public boolean valid() {
        return expectedRule == null;
    }
}
