/**
 * Internal: one {@link io.trellara.identity.codec.FieldCodec} per type tag, the scratch {@link
 * io.trellara.identity.codec.IdentityBuffer}, the OID registry ({@link
 * io.trellara.identity.codec.Codecs}) and the renderer used by the decoder. Each codec class holds
 * its type's layout in both directions: it encodes PostgreSQL's text or binary format, and a static
 * {@code render} (scalars) or {@code decode} (structural types) reads the payload back from an
 * {@link io.trellara.identity.codec.IdentityReader}; the {@link
 * io.trellara.identity.codec.FieldRenderer} reads the framing and dispatches on the type tag, since
 * the bytes carry only the tag. Public only so the API package can reach it; other modules should
 * use {@code io.trellara.identity}.
 */
package io.trellara.identity.codec;
