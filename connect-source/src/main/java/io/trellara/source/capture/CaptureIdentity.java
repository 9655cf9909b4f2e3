package io.trellara.source.capture;

import java.util.Objects;

/** The stable identity every envelope of a flow carries: source, database and dataset (flow). */
public record CaptureIdentity(String sourceId, String databaseId, String datasetId) {

  public CaptureIdentity {
    requireNonBlank(sourceId, "sourceId");
    requireNonBlank(databaseId, "databaseId");
    requireNonBlank(datasetId, "datasetId");
  }

  private static void requireNonBlank(String value, String name) {
    Objects.requireNonNull(value, name);
    if (value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
  }
}
