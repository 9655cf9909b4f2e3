/**
 * The capture core of the source: pgoutput messages in, committed transactions out. Imports nothing
 * from Kafka and nothing from JDBC.
 *
 * <ul>
 *   <li>{@link io.trellara.source.capture.RelationCache}: Relation and Type messages resolved once
 *       into {@link io.trellara.source.capture.RelationSchema}s (type names, schema version
 *       fingerprints).
 *   <li>{@link io.trellara.source.capture.TransactionAssembler}: Begin/Commit and streamed
 *       (protocol 2) transactions, subtransaction aborts, a memory budget with per-transaction
 *       spill files.
 *   <li>{@link io.trellara.source.capture.CapturedTransaction}: a committed transaction whose
 *       events (ChangeRecord and DdlEvent) are produced by iterating, from memory or from the spill
 *       file.
 *   <li>{@link io.trellara.source.capture.StrictEnvelopeBuilder}: one TransactionEnvelope per
 *       transaction, refused above a maximum encoded size.
 * </ul>
 */
package io.trellara.source.capture;
