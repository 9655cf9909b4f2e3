package io.trellara.sink.engine;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.sink.buffer.Decision;
import io.trellara.sink.buffer.Input;
import io.trellara.sink.buffer.SinkBuffer;
import io.trellara.sink.port.BarrierLook;
import io.trellara.sink.port.BarrierState;
import io.trellara.sink.port.TargetStream;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.Barriers;
import io.trellara.sink.postgres.Feed;
import io.trellara.sink.postgres.Tx;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The pure buffer driven directly, decision by decision, against the in-memory target port: a run
 * of source transactions (envelopes, strict-chunked barriers, partitioned barriers over three
 * lanes) published as Kafka would hold them, then delivered in random interleavings of their
 * partitions and random batch sizes, with a random rebalance (every partition forgotten and
 * delivered again from where the buffer said it was durable). Whatever the interleaving: every
 * transaction is applied exactly once, in commit order, and durable positions never run ahead of
 * what is applied.
 */
class SinkBufferPropertiesTest {
  private static final io.trellara.protocol.v1.RelationId ACCOUNTS = Tx.rel("app", "accounts");

  /** How a transaction is published. */
  enum Shape {
    ENVELOPE,
    STRICT_CHUNKED,
    PARTITIONED
  }

  record Plan(List<Shape> shapes, List<Integer> rows, long seed, boolean rebalance) {}

  @Provide
  Arbitrary<Plan> plans() {
    Arbitrary<List<Shape>> shapes = Arbitraries.of(Shape.class).list().ofMinSize(1).ofMaxSize(8);
    Arbitrary<List<Integer>> rows = Arbitraries.integers().between(1, 7).list().ofSize(8);
    return Combinators.combine(shapes, rows, Arbitraries.longs(), Arbitraries.of(true, false))
        .as(Plan::new);
  }

  @Property(tries = 300)
  void everyTransactionIsAppliedOnceInCommitOrderWhateverTheInterleaving(
      @ForAll("plans") Plan plan) {
    List<Barriers.Published> published = new ArrayList<>();
    List<String> lsns = new ArrayList<>();
    int id = 0;
    for (int i = 0; i < plan.shapes().size(); i++) {
      long lsn = 0x100L * (i + 1);
      Tx t = tx(lsn);
      for (int r = 0; r < plan.rows().get(i); r++) {
        id++;
        t.insert(
            ACCOUNTS, key("id", "integer", Integer.toString(id)), val("balance", "numeric", "1"));
      }
      TransactionEnvelope e = t.build();
      lsns.add(e.getCommitLsn());
      switch (plan.shapes().get(i)) {
        case ENVELOPE ->
            published.add(Feed.envelope(TrellaraCodec.encode(e).bytes(), e.getCommitLsn()));
        case STRICT_CHUNKED -> published.addAll(Barriers.strictChunked(e, 2).all());
        case PARTITIONED ->
            published.addAll(
                Barriers.partitioned(
                        e,
                        3,
                        2,
                        event ->
                            Integer.parseInt(
                                    ((ChangeRecord) event).getAfter().getColumns(0).getText())
                                % 3)
                    .all());
      }
    }
    Map<TopicPartitionKey, List<Input>> byPartition = new LinkedHashMap<>();
    for (Input in : new Feed().inputs(published)) {
      byPartition.computeIfAbsent(in.partition(), k -> new ArrayList<>()).add(in);
    }
    InMemoryTarget target = new InMemoryTarget();
    SinkBuffer buffer = new SinkBuffer(1_000, 64 << 20, 0);
    Driver driver = new Driver(buffer, target);
    Random random = new Random(plan.seed());
    Map<TopicPartitionKey, Integer> next = new HashMap<>();
    byPartition.keySet().forEach(k -> next.put(k, 0));
    int total = byPartition.values().stream().mapToInt(List::size).sum();
    int rebalanceAt = plan.rebalance() ? random.nextInt(total) : -1;
    int delivered = 0;
    long clock = 0;
    while (true) {
      List<TopicPartitionKey> open = new ArrayList<>();
      next.forEach(
          (k, v) -> {
            if (v < byPartition.get(k).size()) {
              open.add(k);
            }
          });
      if (open.isEmpty()) {
        break;
      }
      List<Input> batch = new ArrayList<>();
      for (int n = 1 + random.nextInt(4); n > 0 && !open.isEmpty(); n--) {
        TopicPartitionKey k = open.get(random.nextInt(open.size()));
        int at = next.get(k);
        batch.add(byPartition.get(k).get(at));
        next.put(k, at + 1);
        if (at + 1 == byPartition.get(k).size()) {
          open.remove(k);
        }
      }
      clock += 1_000_000L;
      buffer.offer(batch);
      driver.run(clock);
      buffer.takeRewinds().forEach((k, offset) -> next.put(k, offset.intValue()));
      delivered += batch.size();
      if (delivered >= rebalanceAt && rebalanceAt >= 0) {
        rebalanceAt = -1; // every partition revoked and assigned again: read again from durable
        Map<TopicPartitionKey, Long> durable = buffer.durablePositions();
        driver.forget(List.copyOf(byPartition.keySet()));
        durable.forEach((k, offset) -> next.put(k, offset.intValue()));
      }
    }
    for (int i = 0; i < 3 && buffer.waiting(); i++) {
      clock += 2_000_000_000L; // held chunks are staged, waiting barriers looked at again
      buffer.poll();
      driver.run(clock);
    }
    assertThat(target.committedLsns()).as(plan.toString()).containsExactlyElementsOf(lsns);
    for (Map.Entry<TopicPartitionKey, List<Input>> e : byPartition.entrySet()) {
      assertThat(buffer.durablePositions().getOrDefault(e.getKey(), (long) e.getValue().size()))
          .as("durable position of %s", e.getKey())
          .isEqualTo(e.getValue().size());
    }
  }

  /** The smallest driver of the buffer: each decision run against the port, in order. */
  private static final class Driver {
    private final SinkBuffer buffer;
    private final InMemoryTarget target;
    private final Map<TopicPartitionKey, TargetStream> streams = new HashMap<>();

    Driver(SinkBuffer buffer, InMemoryTarget target) {
      this.buffer = buffer;
      this.target = target;
    }

    void run(long now) {
      for (Decision d = buffer.next(now); d != null; d = buffer.next(now)) {
        if (d instanceof Decision.Stage s) {
          target.stage(s.chunks(), s.positions());
        } else if (d instanceof Decision.ApplyEnvelopes a) {
          target.apply(a.batch());
        } else if (d instanceof Decision.CheckBarriers c) {
          buffer.answer(target.look(c.looks()), now);
          continue;
        } else if (d instanceof Decision.CheckApplied c) {
          buffer.answer(
              target.look(List.of(BarrierLook.applied(c.key()))).get(0).verdict().kind()
                  == BarrierState.Kind.ALREADY_APPLIED,
              now);
          continue;
        } else if (d instanceof Decision.MeasureStaging) {
          buffer.answer(target.stagedBehindOldest(), now);
          continue;
        } else if (d instanceof Decision.ApplyBarrier b) {
          target.applyBarrier(b.manifest(), b.positions(), b.held());
        } else if (d instanceof Decision.OpenStream o) {
          streams.put(o.partition(), target.openStream(o.first()));
        } else if (d instanceof Decision.StreamChunk c) {
          streams.get(c.partition()).write(c.chunk());
        } else if (d instanceof Decision.StreamManifest m) {
          streams.get(m.partition()).manifest(m.manifest());
        } else if (d instanceof Decision.CommitStream c) {
          streams.remove(c.partition()).commit(c.marker(), c.positions());
        } else if (d instanceof Decision.RollbackStream r) {
          TargetStream s = streams.remove(r.partition());
          if (s != null) {
            s.rollback();
          }
        } else if (d instanceof Decision.Fail f) {
          throw f.error();
        }
        buffer.completed();
      }
    }

    void forget(List<TopicPartitionKey> partitions) {
      for (TopicPartitionKey k : buffer.forget(partitions)) {
        TargetStream s = streams.remove(k);
        if (s != null) {
          s.rollback();
        }
      }
    }
  }
}
