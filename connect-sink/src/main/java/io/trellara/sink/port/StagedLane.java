package io.trellara.sink.port;

/** One lane (partition_id) of one flow, as staged chunks name it. */
public record StagedLane(String sourceId, String datasetId, long partitionId) {}
