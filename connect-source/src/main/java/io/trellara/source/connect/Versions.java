package io.trellara.source.connect;

/** The version every Trellara plugin reports to Connect. */
final class Versions {
    static final String VERSION = "0.1.0";

    private Versions() {
    }
}
