package io.trellara.sink.apply;

import io.trellara.protocol.v1.DdlEvent;

/** What the sink reads from a DDL event's statement text (never to run it, except under replay). */
final class DdlStatements {
    private DdlStatements() {
    }

    /** An accepted replay statement: its command and objects, for error context. */
    record Accepted(String command, java.util.List<QualifiedName> objects) {
        String describe() {
            return command + " " + objects;
        }
    }

    static boolean isRename(String sql) {
        throw new UnsupportedOperationException("pending lexer");
    }

    /** The relation the event belongs to, or null when it cannot be told. */
    static QualifiedName relationOf(DdlEvent d) {
        try {
            return QualifiedName.parse(d.getObjectIdentity());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    static Accepted checkReplay(DdlEvent d, RelationMapper mapper, String key) {
        throw new UnsupportedOperationException("pending lexer");
    }
}
