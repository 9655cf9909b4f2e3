/**
 * Row identity V2 (docs/row-identity-v2.md): canonical, ordered, prefix-free identity bytes.
 *
 * <ul>
 *   <li>{@link io.trellara.identity.RowIdentityEncoder#forColumns} resolves a relation's key
 *       columns once into a {@link io.trellara.identity.KeyEncoder}, which encodes each row from
 *       pgoutput text or binary values.
 *   <li>{@link io.trellara.identity.RowIdentityTypes} answers config validation: which types are
 *       supported and why a column is rejected.
 *   <li>{@link io.trellara.identity.RowIdentityProbe} derives the bounded index probe; {@link
 *       io.trellara.identity.ProbedIdentity} matches by probe and then full identity.
 *   <li>{@link io.trellara.identity.OwnershipRouting} computes the partition of a SCAN_KEY
 *       identity.
 *   <li>{@link io.trellara.identity.RowIdentityDecoder} and {@link
 *       io.trellara.identity.RowIdentityText} serve inspection and the CLI.
 * </ul>
 *
 * <p>No Kafka and no JDBC here; the encoders never consult the JVM locale or time zone.
 */
package io.trellara.identity;
