package io.trellara.source.engine;

import io.trellara.source.capture.CaptureIdentity;
import io.trellara.source.capture.CaptureSettings;
import io.trellara.source.capture.StrictEnvelopeBuilder;
import io.trellara.source.capture.TransactionAssembler;
import io.trellara.source.pgoutput.PgOutputMessage;
import java.nio.ByteBuffer;
import java.util.function.Consumer;
import java.util.function.Function;

/** Strict transaction order: the assembler's committed transactions become one envelope each. */
public final class StrictPipeline implements TransactionPipeline {
    static final String DDL_PREFIX = "trellara.ddl";

    private final TransactionAssembler assembler;

    private long sequence;

    private StrictPipeline(SourceSettings s, Consumer<Outbound> out) {
        StrictEnvelopeBuilder builder = new StrictEnvelopeBuilder(s.maxEnvelopeBytes());
        assembler = new TransactionAssembler(new CaptureIdentity(s.sourceId(), s.databaseId(), s.datasetId()),
                new CaptureSettings(s.spillDirectory(), s.spillThresholdBytes(), DDL_PREFIX),
                tx -> out.accept(Outbound.envelope(builder.build(tx), ++sequence, tx.endLsn())));
    }

    /** The pipeline the settings' boundary mode asks for: this one, or the chunked/partitioned one. */
    public static Function<Consumer<Outbound>, TransactionPipeline> factory(SourceSettings settings) {
        if (settings.boundary().chunked()) {
            return BarrierPipeline.factory(settings);
        }
        return out -> new StrictPipeline(settings, out);
    }

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
    public void close() {
        assembler.close();
    }
}
