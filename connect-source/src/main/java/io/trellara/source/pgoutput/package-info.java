/**
 * The pgoutput logical replication protocol (versions 1 and 2) as a pure parser: {@link
 * io.trellara.source.pgoutput.PgOutputParser} turns the bytes of one message into a {@link
 * io.trellara.source.pgoutput.PgOutputMessage} record or throws {@link
 * io.trellara.source.pgoutput.PgOutputProtocolException}.
 *
 * <p>This package imports nothing from Kafka Connect and nothing from JDBC (checked by {@code
 * PgOutputPackageDependencyTest}); it does no I/O. The replication stream itself, keepalives and
 * LSN acknowledgement belong to the capture engine.
 */
package io.trellara.source.pgoutput;
