package io.trellara.sink.apply;

/** What the applier does with a DDL event at its place in the transaction's total order. */
public enum DdlPolicy {
    /** Execute the captured statement verbatim on the target under the captured search_path. */
    REPLAY,
    /** Ignore the DDL event (the target's schema is managed elsewhere); counted in the metrics. */
    SKIP,
    /** Stop: the transaction is not applied and an {@link ApplyException} names the DDL event. */
    FAIL
}
