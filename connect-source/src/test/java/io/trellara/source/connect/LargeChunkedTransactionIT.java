package io.trellara.source.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.KafkaRecord;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TrellaraStack;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One large transaction through the source alone in strict chunked mode: PostgreSQL streams it
 * while it runs, the source spills it, and at COMMIT re-reads the spill into chunks that leave as
 * they fill. Checks the barrier (every chunk, manifest and marker verified, every row once) and
 * logs the figures the benchmarks quote: COMMIT to the first chunk on the topic, COMMIT to the
 * acknowledged marker, and the test JVM's peak heap (the broker and the Connect worker share it).
 * {@code -Dtrellara.source.large.rows} sets the row count (100,000 by default so the suite stays
 * quick; the benchmark figure uses 300,000).
 */
@EitherPlatform
class LargeChunkedTransactionIT {
  private static final Logger LOG = LoggerFactory.getLogger(LargeChunkedTransactionIT.class);
  static final TrellaraStack STACK = SourceConnectorIT.STACK;
  static final int ROWS = Integer.getInteger("trellara.source.large.rows", 100_000);
  static final int PER_CHUNK = 5_000;

  private static String header(KafkaRecord r, String name) {
    byte[] v = r.header(name);
    return v == null ? null : new String(v, StandardCharsets.UTF_8);
  }

  @Test
  void aSpilledTransactionLeavesAsVerifiedChunksThenManifestAndMarker() throws Exception {
    try (TestScope scope = STACK.newScope("largeChunked")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute(
          "CREATE TABLE bulk (id bigint PRIMARY KEY, a int, b text, c numeric(12,2), d timestamptz)");
      String topic = scope.createTopic("strict", 1);
      String name =
          SourceConnectorIT.deploy(
              scope,
              db,
              topic,
              "public.bulk",
              Map.of("dataset.strict_chunking.max_changes_per_chunk", Integer.toString(PER_CHUNK)));
      ObjectName bean =
          new ObjectName("io.trellara:type=source-task,connector=" + name + ",task=0");
      MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();

      MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
      AtomicLong peakHeap = new AtomicLong();
      java.util.concurrent.ScheduledExecutorService sampler =
          java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "heap-sampler");
                t.setDaemon(true);
                return t;
              });
      sampler.scheduleAtFixedRate(
          () -> peakHeap.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max),
          0,
          50,
          java.util.concurrent.TimeUnit.MILLISECONDS);

      db.execute(
          "INSERT INTO bulk SELECT g, g % 1000, md5(g::text), g / 100.0, now() FROM generate_series(1, "
              + ROWS
              + ") g");
      long commit = System.nanoTime();
      await()
          .atMost(Duration.ofMinutes(5))
          .pollInterval(Duration.ofMillis(20))
          .until(
              () ->
                  STACK.broker().endOffsets(topic).values().stream()
                          .mapToLong(Long::longValue)
                          .sum()
                      > 0);
      long firstChunk = System.nanoTime();
      await()
          .atMost(Duration.ofMinutes(5))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> (Long) jmx.getAttribute(bean, "TransactionsAcknowledged") >= 1);
      long acknowledged = System.nanoTime();
      sampler.shutdownNow();

      List<KafkaRecord> records = STACK.broker().readAll(topic);
      List<PartitionChunk> chunks = new ArrayList<>();
      for (KafkaRecord r : records.subList(0, records.size() - 2)) {
        assertThat(header(r, MessageKind.HEADER)).isEqualTo("chunk");
        chunks.add(TrellaraCodec.decodeChunk(r.value()));
      }
      TransactionManifest manifest =
          TrellaraCodec.decodeManifest(records.get(records.size() - 2).value());
      TransactionCommitMarker marker =
          TrellaraCodec.decodeCommitMarker(records.get(records.size() - 1).value());
      BarrierVerifier.verify(manifest, marker, chunks);
      assertThat(manifest.getGlobalEventCount()).isEqualTo(ROWS);
      // cut at PER_CHUNK events or at the byte limit, whichever comes first
      assertThat(chunks.size()).isGreaterThanOrEqualTo((ROWS + PER_CHUNK - 1) / PER_CHUNK);
      assertThat((Long) jmx.getAttribute(bean, "SpilledTransactions")).isEqualTo(1);

      LOG.info(
          "{} rows strict chunked ({} chunks of at most {} events): COMMIT -> first chunk on the topic {} ms,"
              + " COMMIT -> marker acknowledged {} ms, test JVM heap used at most {} MiB",
          ROWS,
          chunks.size(),
          PER_CHUNK,
          (firstChunk - commit) / 1_000_000,
          (acknowledged - commit) / 1_000_000,
          peakHeap.get() >> 20);
    }
  }
}
