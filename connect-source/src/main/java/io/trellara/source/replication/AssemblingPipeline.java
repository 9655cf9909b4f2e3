package io.trellara.source.replication;

import io.trellara.source.capture.CaptureIdentity;
import io.trellara.source.capture.CaptureSettings;
import io.trellara.source.capture.CapturedTransaction;
import io.trellara.source.capture.TransactionAssembler;
import io.trellara.source.pgoutput.PgOutputMessage;
import java.nio.ByteBuffer;

/** What every pipeline shares: the transaction assembler in front, its gauges, its cleanup. */
abstract class AssemblingPipeline implements TransactionPipeline {
  static final String DDL_PREFIX = "trellara.ddl";

  private final TransactionAssembler assembler;

  AssemblingPipeline(SourceSettings s) {
    // the handler runs only from accept(), after the subclass is constructed
    assembler =
        new TransactionAssembler(
            new CaptureIdentity(s.sourceId(), s.databaseId(), s.datasetId()),
            new CaptureSettings(
                s.spillDirectory(),
                s.spillThresholdBytes(),
                DDL_PREFIX,
                s.ddlCapture(),
                s.capturedTables()),
            this::committed);
  }

  /** A committed transaction with at least one event, in commit order, on the capture thread. */
  abstract void committed(CapturedTransaction tx);

  @Override
  public void accept(PgOutputMessage message, ByteBuffer raw, long walStart) {
    assembler.accept(message, raw, walStart);
  }

  @Override
  public boolean idle() {
    return assembler.idle();
  }

  @Override
  public int inFlightTransactions() {
    return assembler.inFlightTransactions();
  }

  @Override
  public long memoryBytes() {
    return assembler.memoryBytes();
  }

  @Override
  public long spilledTransactions() {
    return assembler.spilledTransactions();
  }

  @Override
  public long spilledBytes() {
    return assembler.spilledBytes();
  }

  @Override
  public long ddlEventsDropped() {
    return assembler.ddlEventsDropped();
  }

  @Override
  public long ddlMessagesRefused() {
    return assembler.ddlMessagesRefused();
  }

  @Override
  public void close() {
    assembler.close();
  }
}
