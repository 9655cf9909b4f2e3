package io.trellara.sink.buffer;

/**
 * What the buffer holds, for metrics: transactions waiting at a barrier (queued barriers, manifests
 * waiting for their marker, transactions streaming towards it), lanes the head barriers lack, and
 * the bytes queued in memory.
 */
record BufferGauges(long waitingTransactions, long waitingLanes, long queuedBytes) {
  static BufferGauges of(Iterable<PartitionState> partitions, LaneHolds lanes) {
    long waiting = 0;
    long absentLanes = 0;
    long bytes = 0;
    for (PartitionState ps : partitions) {
      long partitionBytes = 0;
      for (Items.Item i : ps.queue) {
        if (i instanceof Items.BarrierItem b) {
          waiting++;
          if (b.verdict != null && b == ps.queue.peek()) {
            absentLanes += b.verdict.absentLanes();
          }
        }
        partitionBytes += i.bytes();
      }
      if (ps.pendingManifest != null || ps.stream != null) {
        waiting++; // a manifest waiting for its marker, or a transaction streaming towards it
      }
      if (ps.pendingManifest != null) {
        partitionBytes += ps.pendingManifest.manifest().getSerializedSize();
      }
      ps.queuedBytes = partitionBytes;
      bytes += partitionBytes;
    }
    return new BufferGauges(waiting, absentLanes, bytes + lanes.bytes());
  }
}
