package io.trellara.source.capture;

import io.trellara.source.pgoutput.PgOutputMessage.Delete;
import io.trellara.source.pgoutput.PgOutputMessage.Insert;
import io.trellara.source.pgoutput.PgOutputMessage.LogicalMessage;
import io.trellara.source.pgoutput.PgOutputMessage.Streamable;
import io.trellara.source.pgoutput.PgOutputMessage.Truncate;
import io.trellara.source.pgoutput.PgOutputMessage.Update;
import io.trellara.source.pgoutput.TupleData;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Where the assembler keeps the changes of its in-flight transactions, within one memory budget
 * (the spill rule, see {@link TransactionAssembler}): each change is charged an estimate of its
 * size ({@link #estimate}); before a change would take the sum over every in-flight transaction
 * above {@link CaptureSettings#spillThresholdBytes()}, the transaction holding the most memory
 * moves to its spill file (the receiving one itself when nothing else holds memory). A spilled
 * transaction's records are staged in one buffer and written as one spill frame per {@value
 * #SPILL_FRAME_BYTES} bytes (or when another transaction spills, or at commit), so a spilled change
 * costs no system call of its own. Single-threaded, as the assembler.
 */
final class ChangeBuffer {
  /** Per-change bookkeeping charged on top of the tuple bytes (objects, arrays, list slot). */
  static final int PER_CHANGE_OVERHEAD_BYTES = 96;

  /** Per tuple column (kind byte, bounds) charged on top of the value bytes. */
  static final int PER_COLUMN_OVERHEAD_BYTES = 9;

  static final int SPILL_FRAME_BYTES = 64 * 1024;

  private final CaptureSettings settings;
  private final PgOutputEncoder encoder = new PgOutputEncoder();
  private byte[] stage = new byte[SPILL_FRAME_BYTES + 1024];
  private int stageLength;
  private InFlightTransaction stageOwner;
  private long memoryBytes;
  private long spilledTransactions;
  private long spilledBytes;
  private long peakMemoryBytes;

  ChangeBuffer(CaptureSettings settings) {
    this.settings = settings;
  }

  /**
   * Keeps {@code m} for {@code tx}, in memory or in its spill file.
   *
   * @param largestInMemory the in-flight transaction holding the most memory (null: none)
   */
  void add(
      InFlightTransaction tx,
      Streamable m,
      ByteBuffer raw,
      long walStart,
      RelationSchema[] rels,
      Supplier<InFlightTransaction> largestInMemory) {
    int size = estimate(m);
    if (!tx.spilling()) {
      long budget = settings.spillThresholdBytes();
      while (memoryBytes + size > budget) {
        InFlightTransaction largest = largestInMemory.get();
        if (largest == null) {
          break;
        }
        moveToSpill(largest);
      }
      if (memoryBytes + size > budget) {
        moveToSpill(tx); // nothing else holds memory and the change alone exceeds the budget
      }
    }
    if (tx.spilling()) {
      writeSpill(tx, m, raw != null ? raw : keptWire(m), walStart, rels);
    } else {
      byte[] wire = null;
      if (raw != null && keptWire(m) == null) { // a Truncate or DDL message: small and rare
        wire = new byte[raw.remaining()];
        raw.duplicate().get(wire);
      }
      tx.memory.add(new BufferedChange(m, walStart, rels, size, wire));
      tx.memoryBytes += size;
      memoryBytes += size;
      if (memoryBytes > peakMemoryBytes) {
        peakMemoryBytes = memoryBytes;
      }
    }
  }

  /** {@code tx} commits: its staged spill records are written first. */
  void committing(InFlightTransaction tx) {
    if (stageOwner == tx) {
      flushStage();
    }
  }

  /** {@code tx} is gone (emitted or aborted): its memory and staged records are released. */
  void released(InFlightTransaction tx) {
    dropStage(tx);
    memoryBytes -= tx.memoryBytes;
  }

  /** An aborted subtransaction released {@code bytes}. */
  void releasedBytes(long bytes) {
    memoryBytes -= bytes;
  }

  /** Forgets everything (the assembler closes). */
  void clear() {
    stageOwner = null;
    stageLength = 0;
    memoryBytes = 0;
  }

  long memoryBytes() {
    return memoryBytes;
  }

  long peakMemoryBytes() {
    return peakMemoryBytes;
  }

  long spilledTransactions() {
    return spilledTransactions;
  }

  long spilledBytes() {
    return spilledBytes;
  }

  private void moveToSpill(InFlightTransaction tx) {
    if (tx.spilling()) {
      return;
    }
    tx.openSpill(settings.spillDirectory());
    spilledTransactions++;
    List<BufferedChange> buffered = new ArrayList<>(tx.memory);
    memoryBytes -= tx.memoryBytes;
    tx.memory.clear();
    tx.memoryBytes = 0;
    for (BufferedChange b : buffered) {
      writeSpill(tx, b.message(), b.wireBytes(), b.walStart(), b.relations());
    }
  }

  /**
   * The wire bytes a parsed Insert, Update or Delete keeps (its tuples hold the whole message it
   * was parsed from, see {@link TupleData#message()}), so spilling it never encodes it back; null
   * for other messages.
   */
  static ByteBuffer keptWire(Streamable m) {
    TupleData t =
        m instanceof Insert i
            ? i.newTuple()
            : m instanceof Update u ? u.newTuple() : m instanceof Delete d ? d.oldTuple() : null;
    if (t == null) {
      return null;
    }
    ByteBuffer wire = t.message();
    if (wire.get(0) != m.type()) {
      throw new IllegalStateException(
          "a '"
              + (char) m.type()
              + "' change holds the tuple of a '"
              + (char) wire.get(0)
              + "' message");
    }
    return wire;
  }

  /**
   * Spill record: Int32 length of the rest | Int64 walStart | Int32 n | n x Int32 schema version |
   * raw pgoutput message.
   */
  private void writeSpill(
      InFlightTransaction tx, Streamable m, ByteBuffer raw, long walStart, RelationSchema[] rels) {
    if (stageOwner != tx) {
      flushStage();
      stageOwner = tx;
    }
    int bodyLength = raw != null ? raw.remaining() : encoder.encode(m);
    int recordLength = 12 + 4 * rels.length + bodyLength;
    ensureStage(4 + recordLength);
    ByteBuffer out = ByteBuffer.wrap(stage, stageLength, 4 + recordLength);
    out.putInt(recordLength).putLong(walStart).putInt(rels.length);
    for (RelationSchema r : rels) {
      out.putInt(r.version());
    }
    if (raw != null) {
      raw.duplicate().get(stage, out.position(), bodyLength);
    } else {
      System.arraycopy(encoder.buffer(), 0, stage, out.position(), bodyLength);
    }
    stageLength += 4 + recordLength;
    spilledBytes += 4 + recordLength;
    tx.spilledRecords++;
    if (stageLength >= SPILL_FRAME_BYTES) {
      flushStage();
    }
  }

  /** Writes the staged records of their transaction as one spill frame. */
  private void flushStage() {
    if (stageOwner != null && stageLength > 0) {
      stageOwner.spill.appendSpill(stage, 0, stageLength);
    }
    stageOwner = null;
    stageLength = 0;
  }

  /** Forgets staged records of a transaction that is being dropped. */
  private void dropStage(InFlightTransaction tx) {
    if (stageOwner == tx) {
      stageOwner = null;
      stageLength = 0;
    }
  }

  private void ensureStage(int more) {
    if (stageLength + more > stage.length) {
      if (stageLength > 0) {
        // the staged records go out as a frame, and the stage stays this transaction's: without
        // its owner the record about to be staged would never be written (a large row after
        // small ones, found with 100 kB values)
        InFlightTransaction owner = stageOwner;
        flushStage();
        stageOwner = owner;
      }
      if (more > stage.length) {
        stage = new byte[more];
      }
    }
  }

  /** The memory a buffered change is charged: tuple bytes + per-column and per-change overheads. */
  static int estimate(Streamable m) {
    if (m instanceof Insert i) {
      return PER_CHANGE_OVERHEAD_BYTES + tuple(i.newTuple());
    } else if (m instanceof Update u) {
      return PER_CHANGE_OVERHEAD_BYTES
          + tuple(u.newTuple())
          + (u.oldTuple() != null ? tuple(u.oldTuple()) : 0);
    } else if (m instanceof Delete d) {
      return PER_CHANGE_OVERHEAD_BYTES + (d.oldTuple() != null ? tuple(d.oldTuple()) : 0);
    } else if (m instanceof Truncate t) {
      return PER_CHANGE_OVERHEAD_BYTES + 8 * t.relationOids().length;
    } else if (m instanceof LogicalMessage l) {
      return PER_CHANGE_OVERHEAD_BYTES + l.content().length + 2 * l.prefix().length();
    }
    return PER_CHANGE_OVERHEAD_BYTES;
  }

  private static int tuple(TupleData t) {
    int n = t.columnCount();
    int bytes = 32 + n * PER_COLUMN_OVERHEAD_BYTES;
    for (int i = 0; i < n; i++) {
      bytes += t.valueLength(i);
    }
    return bytes;
  }
}
