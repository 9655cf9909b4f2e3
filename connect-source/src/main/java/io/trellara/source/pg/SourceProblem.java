package io.trellara.source.pg;

/**
 * A reason the source cannot run, tied to the setting a person should look at, worded as advice.
 */
public record SourceProblem(String property, String message) {}
