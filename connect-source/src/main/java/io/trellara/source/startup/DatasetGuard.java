package io.trellara.source.startup;

import java.util.Map;

/**
 * A running pipeline's {@code dataset.id} does not change. The sink deduplicates per flow (source
 * and dataset): a transaction already published under one dataset and published again under another
 * (a restart re-sends what Kafka had not acknowledged) would be a new transaction to it, and
 * applied twice. So every offset records the dataset it was written under, and a start whose
 * configured dataset differs from the stored one is refused, naming both and the ways out.
 */
final class DatasetGuard {
  static final String DATASET_ID = "dataset_id";

  private DatasetGuard() {}

  /** Null when {@code stored} (Connect's offset map, or null) allows {@code configured}. */
  static String refusal(Map<String, ?> stored, String configured, String connector) {
    Object was = stored == null ? null : stored.get(DATASET_ID);
    if (was == null || was.toString().equals(configured)) {
      return null; // no offset, an offset of a version that did not record it, or the same
    }
    return "dataset.id is '"
        + configured
        + "', but the offsets of connector "
        + connector
        + " were written under dataset.id '"
        + was
        + "'. The sink deduplicates per source and dataset, so a transaction this source publishes"
        + " again after a restart would be applied a second time under the new dataset. Set"
        + " dataset.id back to '"
        + was
        + "'; or, to start a new dataset, deploy a new connector (new name, so new offsets) with its"
        + " own slot.name, and let the sink take its initial snapshot of the new dataset.";
  }
}
