package io.trellara.source.startup;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.MemoryOffsetBackingStore;
import org.apache.kafka.connect.storage.OffsetStorageReaderImpl;
import org.apache.kafka.connect.storage.OffsetStorageWriter;
import org.apache.kafka.connect.util.Callback;

/**
 * Kafka Connect's own offset storage, in memory: the worker's internal JSON converter ({@code
 * schemas.enable=false}), {@link OffsetStorageWriter} (what the worker's offset flush writes) and
 * {@link OffsetStorageReaderImpl} (what a task's {@code offsetStorageReader()} reads). {@link
 * #main} prints the key bytes Connect stores an offset under, for the partition map the source
 * builds now and the one it built before ({@code Map.of}), so a test can compare JVMs.
 */
final class ConnectOffsetKeys {
  static final String CONNECTOR = "orders-source";

  /** The offsets topic of one worker, its keys and values as Connect stores them. */
  static final class Store extends MemoryOffsetBackingStore implements AutoCloseable {
    Store() {
      start();
    }

    @Override
    public void close() {
      stop();
    }

    Map<ByteBuffer, ByteBuffer> data() {
      return data;
    }

    @Override
    public Set<Map<String, Object>> connectorPartitions(String connectorName) {
      return Set.of();
    }
  }

  static JsonConverter internalConverter(boolean isKey) {
    JsonConverter c = new JsonConverter();
    c.configure(Map.of("schemas.enable", "false"), isKey);
    return c;
  }

  /** Writes and flushes one offset as the worker's offset commit does. */
  static void write(Store store, Map<String, ?> partition, Map<String, ?> offset) throws Exception {
    OffsetStorageWriter writer =
        new OffsetStorageWriter(
            store, CONNECTOR, internalConverter(true), internalConverter(false));
    writer.offset(partition, offset);
    if (!writer.beginFlush()) {
      throw new IllegalStateException("nothing to flush");
    }
    Callback<Void> none = (error, result) -> {};
    Future<Void> flushed = writer.doFlush(none);
    flushed.get(10, TimeUnit.SECONDS);
  }

  /** Reads one offset as a task's {@code context.offsetStorageReader().offset(...)} does. */
  static Map<String, Object> read(Store store, Map<String, String> partition) {
    return new OffsetStorageReaderImpl(
            store, CONNECTOR, internalConverter(true), internalConverter(false))
        .offset(partition);
  }

  /** The one key Connect stores {@code partition}'s offset under, as text. */
  static String storedKey(Map<String, ?> partition) throws Exception {
    try (Store store = new Store()) {
      write(store, partition, Map.of("end_lsn", 1L));
      ByteBuffer key = store.data().keySet().iterator().next();
      byte[] bytes = new byte[key.remaining()];
      key.duplicate().get(bytes);
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }

  /**
   * Prints, on two lines, the stored key of the partition an earlier version built ({@code Map.of})
   * and of the one the source builds now ({@link SourceOffsets#partition}).
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> before = Map.of("source_id", "orders", "slot", "orders_slot");
    System.out.println(storedKey(before));
    System.out.println(storedKey(SourceOffsets.partition("orders", "orders_slot")));
  }
}
