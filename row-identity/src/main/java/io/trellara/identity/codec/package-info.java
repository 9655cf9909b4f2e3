/**
 * Internal: one {@link io.trellara.identity.codec.FieldCodec} per type tag, the scratch
 * {@link io.trellara.identity.codec.IdentityBuffer}, the OID registry ({@link io.trellara.identity.codec.Codecs})
 * and the renderer used by the decoder. Public only so the API package can reach it; other modules should use
 * {@code io.trellara.identity}.
 */
package io.trellara.identity.codec;
