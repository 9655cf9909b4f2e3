package io.trellara.plugin.crash;

import io.trellara.plugin.crash.Step.Kind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * A crash sequence: the pipeline's settings and the steps, drawn from a seed ({@link #draw}) or
 * written out ({@link #parse}). {@link #toString()} is the sequence's full text, which {@code
 * -Dtrellara.crash.sequence} replays exactly; the seed with the fault count, mode and size draws
 * the same plan again.
 *
 * @param seed the seed the plan was drawn from (also seeds the workload's random choices)
 * @param mode the boundary mode of the flow
 * @param size how much the source holds before the connectors start, and the faults' scale
 * @param snapshotApply the sink's {@code snapshot.apply}
 * @param streaming the source database's {@code logical_decoding_work_mem} is 64kB (large
 *     transactions stream while they are open)
 * @param offsetFlushMs the worker's {@code offset.flush.interval.ms}
 */
public record SequencePlan(
    long seed,
    BoundaryMode mode,
    Size size,
    String snapshotApply,
    boolean streaming,
    int offsetFlushMs,
    List<Step> steps) {

  /** How big the pre-filled source is, and how long outages last. */
  public enum Size {
    /** CI: three small filler tables, short outages. */
    CI(3, 1_500, 400, 1_000, 4_000, 3, 6),
    /** the second reported sequence's "smaller pre-filled source". */
    SMALL(4, 8_000, 2_000, 2_000, 8_000, 5, 30),
    /** tables big enough that a COPY is still open on the sink when the next table starts. */
    BIG(5, 60_000, 5_000, 2_000, 12_000, 5, 30),
    /** the long run's default. */
    LONG(4, 6_000, 2_000, 2_000, 12_000, 3, 30);

    final int fillerTables;
    final int fillerRows;
    final int prefilledTransfers;
    final int largeMin;
    final int largeMax;
    final int outageMin;
    final int outageMax;

    Size(int tables, int rows, int transfers, int largeMin, int largeMax, int outMin, int outMax) {
      this.fillerTables = tables;
      this.fillerRows = rows;
      this.prefilledTransfers = transfers;
      this.largeMin = largeMin;
      this.largeMax = largeMax;
      this.outageMin = outMin;
      this.outageMax = outMax;
    }

    public static Size of(String name) {
      return valueOf(name.trim().toUpperCase(Locale.ROOT));
    }
  }

  public SequencePlan {
    steps = List.copyOf(steps);
  }

  /** The faults among the steps. */
  public int faults() {
    return (int) steps.stream().filter(s -> s.kind().fault()).count();
  }

  /**
   * Draws a plan of {@code faults} faults from the seed; {@code mode} null draws the mode too.
   * Large transactions and DDL are drawn between the faults.
   */
  public static SequencePlan draw(long seed, int faults, BoundaryMode mode, Size size) {
    Random r = new Random(seed);
    BoundaryMode drawnMode = BoundaryMode.values()[r.nextInt(BoundaryMode.values().length)];
    String apply = r.nextDouble() < 0.3 ? "per_table" : "atomic";
    boolean streaming = r.nextBoolean();
    int flush = new int[] {1_000, 10_000, 60_000}[r.nextInt(3)];
    List<Step> steps = new ArrayList<>();
    for (int i = 0; i < faults; i++) {
      double first = r.nextDouble();
      if (i == 0 && first < 0.35) {
        steps.add(Step.of(Kind.KILL_SNAPSHOT, "at", 0.05 + 0.9 * r.nextDouble(), "down", down(r)));
        continue;
      }
      if (i == 0 && first < 0.5) {
        steps.add(Step.of(Kind.KILL_PUBLISHED, "when", "applied", "down", down(r)));
        continue;
      }
      if (r.nextDouble() < 0.3) {
        steps.add(Step.of(Kind.LARGE_TX, "rows", rows(r, size)));
      }
      if (r.nextDouble() < 0.2) {
        steps.add(Step.of(Kind.DDL, "table", Workload.DDL_TABLES.get(r.nextInt(4))));
      }
      steps.add(fault(r, size));
    }
    return new SequencePlan(
        seed, mode != null ? mode : drawnMode, size, apply, streaming, flush, steps);
  }

  private static final Kind[] POOL = {
    Kind.KILL_STREAMING,
    Kind.KILL_STREAMING,
    Kind.KILL_LARGE_TX,
    Kind.KILL_LARGE_TX,
    Kind.KILL_SWAP,
    Kind.RESTART,
    Kind.RESTART,
    Kind.RECREATE,
    Kind.SOURCE_PG_RESTART,
    Kind.SOURCE_PG_RESTART,
    Kind.TARGET_PG_RESTART,
    Kind.TARGET_PG_RESTART,
    Kind.TARGET_OUTAGE,
    Kind.TARGET_OUTAGE,
    Kind.BROKER_RESTART,
    Kind.BROKER_RESTART,
    Kind.REBALANCE,
    Kind.REBALANCE
  };

  private static Step fault(Random r, Size size) {
    Kind kind = POOL[r.nextInt(POOL.length)];
    return switch (kind) {
      case KILL_STREAMING -> Step.of(kind, "after", 0.2 + 3 * r.nextDouble(), "down", down(r));
      case KILL_LARGE_TX ->
          Step.of(
              kind,
              "rows",
              rows(r, size),
              "phase",
              r.nextBoolean() ? "open" : "applying",
              "at",
              r.nextDouble(),
              "down",
              down(r));
      case KILL_SWAP -> Step.of(kind, "at", 0.05 + 0.9 * r.nextDouble(), "down", down(r));
      case RESTART, RECREATE -> Step.of(kind, "which", r.nextBoolean() ? "source" : "sink");
      case SOURCE_PG_RESTART, TARGET_PG_RESTART, BROKER_RESTART ->
          Step.of(kind, "down", 3 * r.nextDouble());
      case TARGET_OUTAGE ->
          Step.of(kind, "s", size.outageMin + r.nextInt(size.outageMax - size.outageMin + 1));
      case REBALANCE ->
          Step.of(kind, "leave", r.nextBoolean() ? "stop" : "kill", "hold", 2 + 3 * r.nextDouble());
      default -> throw new IllegalStateException(kind.name());
    };
  }

  private static double down(Random r) {
    return 2 * r.nextDouble();
  }

  private static int rows(Random r, Size size) {
    return size.largeMin + r.nextInt(size.largeMax - size.largeMin + 1);
  }

  /**
   * Parses the text {@link #toString()} prints: {@code seed=7 mode=strict size=ci apply=atomic
   * streaming=off flush=1000: STEP; STEP; ...}.
   */
  public static SequencePlan parse(String text) {
    int colon = text.indexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("expected 'settings: steps', got " + text);
    }
    long seed = 0;
    BoundaryMode mode = BoundaryMode.STRICT;
    Size size = Size.CI;
    String apply = "atomic";
    boolean streaming = false;
    int flush = 1_000;
    for (String setting : text.substring(0, colon).trim().split("\\s+")) {
      int eq = setting.indexOf('=');
      if (eq < 0) {
        continue;
      }
      String value = setting.substring(eq + 1);
      switch (setting.substring(0, eq)) {
        case "seed" -> seed = Long.parseLong(value);
        case "mode" -> mode = BoundaryMode.of(value);
        case "size" -> size = Size.of(value);
        case "apply" -> apply = value;
        case "streaming" -> streaming = value.equals("on") || value.equals("true");
        case "flush" -> flush = Integer.parseInt(value);
        default -> throw new IllegalArgumentException("unknown setting " + setting);
      }
    }
    List<Step> steps =
        Arrays.stream(text.substring(colon + 1).split(";"))
            .map(String::trim)
            .filter(s -> !s.isEmpty())
            .map(Step::parse)
            .toList();
    return new SequencePlan(seed, mode, size, apply, streaming, flush, steps);
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "seed=%d mode=%s size=%s apply=%s streaming=%s flush=%d: %s",
        seed,
        mode.text(),
        size.name().toLowerCase(Locale.ROOT),
        snapshotApply,
        streaming ? "on" : "off",
        offsetFlushMs,
        String.join("; ", steps.stream().map(Step::toString).toList()));
  }
}
