package io.trellara.identity.codec;

import io.trellara.identity.RowIdentityException;
import io.trellara.identity.TypeTag;

/**
 * Writes the payload of one field (after its type tag and VALUE state byte). Resolved once per
 * column; stateless, so one instance may serve every relation. Reading a payload back needs no
 * instance (the bytes carry the tag and structural values frame their own elements): each
 * implementing class has a static {@code render} or {@code decode}, which {@link FieldRenderer}
 * calls by tag.
 */
public interface FieldCodec {
  TypeTag tag();

  /**
   * Encode the PostgreSQL text output in {@code v[off, end)}; {@code depth} counts structural
   * nesting.
   */
  void encodeText(byte[] v, int off, int end, IdentityBuffer out, int depth);

  /** Whether {@link #encodeBinary} accepts the type's binary send format. */
  default boolean supportsBinary() {
    return false;
  }

  /** Encode the binary send format in {@code v[off, end)}. */
  default void encodeBinary(byte[] v, int off, int end, IdentityBuffer out) {
    throw new RowIdentityException("binary format is not supported for " + tag().sqlName());
  }
}
