package io.trellara.protocol;

import io.trellara.protocol.v1.ManifestBoundaryMode;

/**
 * The wire vocabulary operator surfaces print for how a transaction crossed Kafka (record headers,
 * task metrics, the CLI): plain envelopes, or one of the manifest's two boundary modes.
 * Configuration has only two mode values; this is the third name it never spells.
 */
public final class BoundaryVocabulary {
  public static final String STRICT = "strict_transaction_order";
  public static final String STRICT_CHUNKED = "strict_chunked_transaction_order";
  public static final String PARTITIONED = "partitioned_scale_mode";

  private BoundaryVocabulary() {}

  /** The name of a manifest's boundary mode. */
  public static String of(ManifestBoundaryMode mode) {
    return switch (mode) {
      case STRICT_CHUNKED_TRANSACTION_ORDER -> STRICT_CHUNKED;
      case PARTITIONED_SCALE_MODE -> PARTITIONED;
      default -> mode.name();
    };
  }
}
