package io.trellara.quickstart;

/**
 * What one run names on the servers. On embedded servers the names are fixed; on existing ones they
 * carry the run id, so that runs do not collide and the shutdown removes exactly what this run
 * created.
 */
record RunNames(
    String sourceId, String slot, String publication, String topic, String workerGroup) {

  static RunNames of(Options options, String runId) {
    String slot = options.embeddedSource() ? "trellara_quickstart" : "trellara_quickstart_" + runId;
    return new RunNames(
        "quickstart-" + runId,
        slot,
        slot,
        options.embeddedKafka()
            ? "trellara.quickstart.strict"
            : "trellara.quickstart." + runId + ".strict",
        options.embeddedKafka() ? "trellara-quickstart" : "trellara-quickstart-" + runId);
  }

  /**
   * The worker's config, offset and status topics: created on an existing Kafka, deleted at exit.
   */
  String[] workerTopics() {
    return new String[] {
      workerGroup + "-configs", workerGroup + "-offsets", workerGroup + "-status"
    };
  }
}
