package io.trellara.source.replication;

import static io.trellara.source.capture.SyntheticStream.begin;
import static io.trellara.source.capture.SyntheticStream.commit;
import static io.trellara.source.capture.SyntheticStream.ddl;
import static io.trellara.source.capture.SyntheticStream.delete;
import static io.trellara.source.capture.SyntheticStream.insert;
import static io.trellara.source.capture.SyntheticStream.relation;
import static io.trellara.source.capture.SyntheticStream.truncate;
import static io.trellara.source.capture.SyntheticStream.update;
import static io.trellara.source.capture.SyntheticStream.wire;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.boundary.ChunkedBarrier;
import io.trellara.protocol.codec.EncodedMessage;
import io.trellara.protocol.log.LocalLogCorruptionException;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.source.capture.ddl.CapturedTables;
import io.trellara.source.pgoutput.PgOutputMessage;
import io.trellara.source.routing.KeyChangePolicy;
import io.trellara.source.routing.NullKeyPolicy;
import io.trellara.source.routing.OwnershipKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A spilled transaction in strict chunked order is published while its spill file is re-read: each
 * chunk leaves as it fills, memory holds a bounded number of chunks whatever the transaction's
 * size, and the bytes are the same whichever way the transaction was held.
 */
class SpilledChunkStreamingTest {
  private static final long ITEMS = 16_400;
  private static final String DDL_JSON =
      "{\"command_tag\": \"ALTER TABLE\", \"object_type\": \"table\","
          + " \"object_identity\": \"public.item\", \"schema_name\": \"public\","
          + " \"statement\": \"ALTER TABLE item ADD COLUMN x int\", \"search_path\": \"public\","
          + " \"relations\": \"\\\"public\\\".\\\"item\\\":16400\", \"temporary\": \"false\","
          + " \"role\": \"app_owner\", \"session_user\": \"app_owner\"}";

  @TempDir Path spill;

  private TransactionPipeline pipeline(
      int maxEventsPerChunk, long spillThreshold, Consumer<Outbound> out) {
    return StrictPipeline.factory(
            settings(
                new BoundarySettings(
                    false,
                    maxEventsPerChunk,
                    1_000_000,
                    0,
                    OwnershipKeys.none(),
                    NullKeyPolicy.ROUTE_TO_SINGLETON_PARTITION,
                    KeyChangePolicy.EMIT_MOVE),
                spillThreshold))
        .apply(out);
  }

  private SourceSettings settings(BoundarySettings boundary, long spillThreshold) {
    return new SourceSettings(
        null,
        "pg-test",
        "testdb",
        "flow",
        "slot",
        "pub",
        false,
        List.of(),
        2,
        true,
        1000,
        600_000,
        0,
        true,
        false,
        spill,
        spillThreshold,
        1 << 30,
        16,
        1 << 20,
        boundary,
        CapturedTables.NONE.withDdlRoles(Set.of("app_owner")));
  }

  /** As the engine feeds it: each parsed message with the bytes it was parsed from. */
  private static void feed(TransactionPipeline p, PgOutputMessage... messages) {
    for (PgOutputMessage m : messages) {
      p.accept(m, wire(m), 0x100);
    }
  }

  private static void bigTransaction(TransactionPipeline p, int rows) {
    feed(p, relation(0, ITEMS, "item", 'd', "id:23:k", "note:25"), begin(0x2000, 700));
    for (int i = 1; i <= rows; i++) {
      feed(p, insert(0, ITEMS, Integer.toString(i), "note " + i));
    }
    feed(p, commit(0x2000));
  }

  private Path onlySpillFile() throws IOException {
    try (Stream<Path> files = Files.list(spill)) {
      List<Path> all = files.toList();
      assertThat(all).hasSize(1);
      return all.get(0);
    }
  }

  @Test
  void whenTheFirstChunkIsHandedOnTheRestOfTheSpillFileIsStillUnread() {
    int rows = 20_000;
    List<Outbound> out = new ArrayList<>();
    AtomicLong spillBytes = new AtomicLong();
    Consumer<Outbound> publisher =
        o -> {
          if (out.isEmpty()) {
            // the first chunk: overwrite the second half of the spill file; a pipeline that had
            // re-read the
            // whole transaction before publishing would never notice
            try {
              Path file = onlySpillFile();
              try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                long size = ch.size();
                spillBytes.set(size);
                ch.write(ByteBuffer.allocate((int) (size - size / 2)), size / 2);
              }
            } catch (IOException e) {
              throw new AssertionError(e);
            }
          }
          out.add(o);
        };
    try (TransactionPipeline p = pipeline(10, 0, publisher)) {
      assertThatThrownBy(() -> bigTransaction(p, rows))
          .isInstanceOf(LocalLogCorruptionException.class);
    }
    assertThat(spillBytes.get()).isGreaterThan(4 * 64 * 1024); // several spill frames
    assertThat(out).isNotEmpty().allSatisfy(o -> assertThat(o.kind()).isEqualTo(MessageKind.CHUNK));
    assertThat(out.size())
        .isLessThan(rows / 10); // chunks of the first half only; no manifest, no marker
  }

  @Test
  void aTransactionOfManyChunksIsPolledChunkByChunkWithABoundedNumberInMemory() throws Exception {
    int rows = 20_000;
    int perChunk = 100;
    OutboundQueue queue = new OutboundQueue(2, 1L << 30);
    AtomicLong created = new AtomicLong();
    AtomicBoolean committed = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    // the capture thread, as CaptureEngine.publish: block while the queue is full
    Thread capture =
        new Thread(
            () -> {
              try (TransactionPipeline p =
                  pipeline(
                      perChunk,
                      0,
                      o -> {
                        created.incrementAndGet();
                        try {
                          while (!queue.offer(o, 500)) {
                            // back-pressure: the poller is behind
                          }
                        } catch (InterruptedException e) {
                          throw new IllegalStateException(e);
                        }
                      })) {
                bigTransaction(p, rows);
                committed.set(true);
              } catch (Throwable t) {
                failure.set(t);
              }
            },
            "capture");
    capture.setDaemon(true);
    capture.start();

    List<Outbound> polled = new ArrayList<>();
    long mostInMemory = 0;
    boolean firstChunkBeforeCommitReturned = false;
    while (polled.isEmpty() || !polled.get(polled.size() - 1).closesTransaction()) {
      assertThat(failure.get()).isNull();
      List<Outbound> batch = new ArrayList<>();
      queue.drainTo(batch, 100);
      if (!batch.isEmpty() && polled.isEmpty()) {
        firstChunkBeforeCommitReturned = !committed.get();
      }
      polled.addAll(batch);
      // handed on by the planner but not yet polled: in the queue, or held by the capture thread
      // waiting for
      // room (the planner holds, besides, the one chunk it is filling)
      mostInMemory = Math.max(mostInMemory, created.get() - polled.size());
    }
    capture.join(60_000);
    assertThat(failure.get()).isNull();
    assertThat(committed).isTrue();

    int chunks = rows / perChunk;
    assertThat(polled).hasSize(chunks + 2);
    assertThat(polled.subList(0, chunks))
        .allSatisfy(o -> assertThat(o.kind()).isEqualTo(MessageKind.CHUNK));
    assertThat(polled.get(chunks).kind()).isEqualTo(MessageKind.MANIFEST);
    assertThat(polled.get(chunks + 1).kind()).isEqualTo(MessageKind.COMMIT_MARKER);
    assertThat(polled)
        .filteredOn(Outbound::closesTransaction)
        .hasSize(1); // only the marker acknowledges WAL
    assertThat(firstChunkBeforeCommitReturned).isTrue();
    assertThat(mostInMemory)
        .isLessThanOrEqualTo(3); // the queue's two records + the one waiting for room
  }

  /**
   * 64 events of every kind (the relation redefined midway when asked); under a 4,000-byte budget
   * the changes up to the DDL are buffered in memory, then moved to the spill file.
   */
  private static void mixedTransaction(TransactionPipeline p, boolean redefine) {
    feed(p, relation(0, ITEMS, "item", 'd', "id:23:k", "note:25"), begin(0x2000, 700));
    for (int i = 1; i <= 10; i++) {
      feed(p, insert(0, ITEMS, Integer.toString(i), "note " + i));
    }
    feed(
        p,
        update(0, ITEMS, 'K', new String[] {"3", null}, "3", "changed"),
        delete(0, ITEMS, 'K', "4", null),
        truncate(0, ITEMS),
        ddl(0, DDL_JSON));
    if (redefine) {
      feed(p, relation(0, ITEMS, "item", 'd', "id:23:k", "note:25", "x:23"));
    }
    for (int i = 11; i <= 60; i++) {
      String id = Integer.toString(i);
      feed(p, redefine ? insert(0, ITEMS, id, "note " + i, id) : insert(0, ITEMS, id, "note " + i));
    }
    feed(p, commit(0x2000));
  }

  /** The records' bytes, 7 events per chunk. */
  private List<byte[]> chunkedBytes(long spillThreshold, boolean redefine) {
    List<Outbound> out = new ArrayList<>();
    try (TransactionPipeline p = pipeline(7, spillThreshold, out::add)) {
      mixedTransaction(p, redefine);
      assertThat(p.spilledTransactions()).isEqualTo(spillThreshold > 1 << 20 ? 0 : 1);
    }
    return out.stream().map(o -> ((EncodedMessage) o.value()).bytes()).toList();
  }

  @Test
  void inMemorySpilledFromTheStartAndSpilledMidwayPublishTheSameBytes() {
    List<byte[]> inMemory = chunkedBytes(1L << 30, true);
    assertThat(inMemory).hasSize(10 + 2); // 64 events in chunks of 7, manifest, marker
    assertThat(chunkedBytes(0, true)).containsExactlyElementsOf(inMemory);
    // buffered changes moved from memory to the spill file as the bytes they arrived in
    assertThat(chunkedBytes(4_000, true)).containsExactlyElementsOf(inMemory);
  }

  @Test
  void theChunksAreTheStrictEnvelopeCutIntoChunksByTheInMemoryBarrier() {
    // the reference: the same transaction as one strict envelope, cut by ChunkedBarrier (which maps
    // a
    // relation to one schema version, so the relation is not redefined here)
    List<Outbound> strict = new ArrayList<>();
    try (TransactionPipeline p =
        StrictPipeline.factory(settings(BoundarySettings.strict(), 1L << 30)).apply(strict::add)) {
      mixedTransaction(p, false);
    }
    List<byte[]> reference =
        ChunkedBarrier.strictChunked((TransactionEnvelope) strict.get(0).value(), 7)
            .inOrder()
            .stream()
            .map(EncodedMessage::bytes)
            .toList();
    assertThat(reference).hasSize(10 + 2);
    assertThat(chunkedBytes(1L << 30, false)).containsExactlyElementsOf(reference);
    assertThat(chunkedBytes(4_000, false)).containsExactlyElementsOf(reference);
  }
}
