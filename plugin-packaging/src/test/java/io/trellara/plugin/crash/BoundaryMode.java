package io.trellara.plugin.crash;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** The flow's boundary mode, as the source and sink are configured for it. */
public enum BoundaryMode {
  /** one envelope per transaction on the strict topic. */
  STRICT,
  /** strict order, each transaction of more than 500 changes as chunks + manifest + marker. */
  STRICT_CHUNKED,
  /** 4 lanes by primary key, 2 sink tasks; manifests and markers on the strict topic. */
  PARTITIONED;

  static final int LANES = 4;
  static final String CHUNK = "500";

  public static BoundaryMode of(String text) {
    return valueOf(text.trim().toUpperCase(Locale.ROOT));
  }

  public String text() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Source settings on top of the defaults. */
  Map<String, String> source(String lanesTopic) {
    Map<String, String> c = new LinkedHashMap<>();
    switch (this) {
      case STRICT -> {}
      case STRICT_CHUNKED -> c.put("dataset.strict_chunking.max_changes_per_chunk", CHUNK);
      case PARTITIONED -> {
        c.put("dataset.mode", "partitioned_scale_mode");
        c.put("topic.partitioned", lanesTopic);
        c.put("dataset.partitioned.partition_count", Integer.toString(LANES));
        c.put("dataset.partitioned.max_changes_per_chunk", CHUNK);
      }
    }
    return c;
  }

  int sinkTasks() {
    return this == PARTITIONED ? 2 : 1;
  }

  /**
   * The sink's recommended group settings (docs/operations.md): static membership for one task, a 6
   * s consumer session for more.
   */
  Map<String, String> sink(String sinkName) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("tasks.max", Integer.toString(sinkTasks()));
    if (sinkTasks() == 1) {
      c.put("consumer.override.group.instance.id", sinkName);
    } else {
      c.put("consumer.override.session.timeout.ms", "6000");
      c.put("consumer.override.heartbeat.interval.ms", "2000");
    }
    return c;
  }
}
