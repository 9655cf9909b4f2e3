package io.trellara.source.replication;

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

  /**
   * The pipeline the settings' boundary mode asks for: this one, or the chunked/partitioned one.
   */
  public static Function<Consumer<Outbound>, TransactionPipeline> factory(SourceSettings settings) {
    if (settings.boundary().chunked()) {
      return BarrierPipeline.factory(settings);
    }
    return out -> new StrictPipeline(settings, out);
  }

  /**
   * Events per chunk of a snapshot published by a plain strict flow (chunk bytes are bounded as
   * well).
   */
  static final int SNAPSHOT_CHUNK_EVENTS = 10_000;

  static final long SNAPSHOT_CHUNK_BYTES = 1_000_000L;

  /**
   * The pipeline of the initial snapshot: the flow's own when it chunks; a plain strict flow
   * publishes its snapshot in strict chunked order, since a snapshot of any size must fit (one
   * envelope would not). Its chunks are cut at {@link #SNAPSHOT_CHUNK_BYTES}, but its records are
   * bounded by the envelope cap, the largest record a plain strict flow announces: a row above the
   * chunk bound travels alone in a chunk up to that cap.
   */
  public static Function<Consumer<Outbound>, BarrierPipeline> snapshotFactory(
      SourceSettings settings) {
    BoundarySettings b = settings.boundary();
    if (b.chunked()) {
      return out -> new BarrierPipeline(settings, out);
    }
    SourceSettings s =
        settings.withBoundary(
            new BoundarySettings(
                false,
                SNAPSHOT_CHUNK_EVENTS,
                Math.min(SNAPSHOT_CHUNK_BYTES, settings.maxEnvelopeBytes()),
                0,
                b.ownershipKeys(),
                b.nullKeyPolicy(),
                b.keyChangePolicy()));
    return out -> new BarrierPipeline(s, out, settings.maxEnvelopeBytes(), MAX_ENVELOPE_BYTES);
  }

  /** The setting that bounds a plain strict flow's records. */
  static final String MAX_ENVELOPE_BYTES = "dataset.strict.max_envelope_bytes";
}
