package io.trellara.source.capture;

import io.trellara.protocol.log.FsyncPolicy;
import io.trellara.protocol.log.LocalLogWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A transaction between its Begin (or first Stream Start) and its commit or abort: changes in
 * memory until the assembler moves it to its spill file, then in the spill file only (never split
 * between the two).
 */
final class InFlightTransaction {

  final long xid;
  final boolean streamed;
  final long beginLsn;
  final List<BufferedChange> memory = new ArrayList<>();
  long memoryBytes;

  /** Subtransactions whose Stream Abort arrived after some of their changes were spilled. */
  final Set<Long> abortedSubXids = new HashSet<>();

  /** Per (sub)transaction xid: {changes, ddl events}; subtracted when the subtransaction aborts. */
  private final Map<Long, long[]> countsBySubXid = new HashMap<>();

  private long lastSubXid;
  private long[] lastCounts;
  long changeCount;
  long ddlCount;

  /**
   * OIDs of relations whose schema changed inside this transaction (several versions referenced).
   */
  final Set<Long> severalVersions = new HashSet<>(2);

  private final Map<Long, RelationSchema> versionByOid = new HashMap<>(4);
  private RelationSchema lastReferenced;
  Path spillFile;
  LocalLogWriter spill;
  long spilledRecords;

  InFlightTransaction(long xid, boolean streamed, long beginLsn) {
    this.xid = xid;
    this.streamed = streamed;
    this.beginLsn = beginLsn;
  }

  boolean spilling() {
    return spill != null;
  }

  /**
   * Notes the schema versions a buffered change references (consecutive changes of one version cost
   * a compare).
   */
  void referenced(RelationSchema[] relations) {
    if (relations == null) {
      return;
    }
    for (RelationSchema r : relations) {
      if (r == lastReferenced) {
        continue;
      }
      RelationSchema previous = versionByOid.put(r.oid(), r);
      if (previous != null && previous != r) {
        severalVersions.add(r.oid());
      }
      lastReferenced = r;
    }
  }

  void count(long subXid, boolean ddl) {
    long[] c = lastCounts;
    if (c == null || lastSubXid != subXid) {
      c = countsBySubXid.computeIfAbsent(subXid, k -> new long[2]);
      lastSubXid = subXid;
      lastCounts = c;
    }
    if (ddl) {
      c[1]++;
      ddlCount++;
    } else {
      c[0]++;
      changeCount++;
    }
  }

  /** Drops exactly the changes of one subtransaction; returns the memory bytes released. */
  long abortSubtransaction(long subXid) {
    long[] c = countsBySubXid.remove(subXid);
    if (lastCounts == c) {
      lastCounts = null;
    }
    if (c == null) {
      return 0;
    }
    changeCount -= c[0];
    ddlCount -= c[1];
    if (spilling()) {
      abortedSubXids.add(subXid);
      return 0;
    }
    long released = 0;
    for (BufferedChange b : memory) {
      if (b.subXid() == subXid) {
        released += b.estimatedBytes();
      }
    }
    memory.removeIf(b -> b.subXid() == subXid);
    memoryBytes -= released;
    return released;
  }

  /**
   * Creates this transaction's spill file: a new, uniquely named file (tasks may share a
   * directory).
   */
  void openSpill(Path directory) {
    try {
      Files.createDirectories(directory);
      spillFile = Files.createTempFile(directory, "trellara-spill-" + xid + "-", ".tlog");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a spill file in " + directory, e);
    }
    spill = LocalLogWriter.open(spillFile, FsyncPolicy.NEVER);
  }

  /** Releases memory and deletes the spill file. Idempotent. */
  void discard() {
    memory.clear();
    memoryBytes = 0;
    if (spill != null) {
      spill.close();
      spill = null;
    }
    if (spillFile != null) {
      try {
        Files.deleteIfExists(spillFile);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot delete spill file " + spillFile, e);
      }
      spillFile = null;
    }
  }
}
