package io.trellara.source.engine;

import io.trellara.source.capture.CapturedTransaction;
import io.trellara.source.capture.StrictEnvelopeBuilder;
import java.util.function.Consumer;
import java.util.function.Function;

/** Strict transaction order: the assembler's committed transactions become one envelope each. */
public final class StrictPipeline extends AssemblingPipeline {
    private final StrictEnvelopeBuilder builder;
    private final Consumer<Outbound> out;
    private long sequence;

    private StrictPipeline(SourceSettings s, Consumer<Outbound> out) {
        super(s);
        this.builder = new StrictEnvelopeBuilder(s.maxEnvelopeBytes());
        this.out = out;
    }

    @Override
    void committed(CapturedTransaction tx) {
        out.accept(Outbound.envelope(builder.build(tx), ++sequence, tx.endLsn()));
    }

    /** The pipeline the settings' boundary mode asks for: this one, or the chunked/partitioned one. */
    public static Function<Consumer<Outbound>, TransactionPipeline> factory(SourceSettings settings) {
        if (settings.boundary().chunked()) {
            return BarrierPipeline.factory(settings);
        }
        return out -> new StrictPipeline(settings, out);
    }
}
