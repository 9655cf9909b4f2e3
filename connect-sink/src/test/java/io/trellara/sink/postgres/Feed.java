package io.trellara.sink.postgres;

import io.trellara.protocol.MessageKind;
import io.trellara.sink.buffer.Input;
import io.trellara.sink.engine.SinkEngine;
import io.trellara.sink.port.TopicPartitionKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Drives an {@link SinkEngine} as a sink task would: crafted messages become raw inputs (verified
 * by the pipeline, as with ByteArrayConverter) on the strict topic ({@code strict-0}) or a lane of
 * the partitioned topic ({@code lanes-<lane>}), with offsets counted per partition like Kafka's.
 */
public final class Feed {
  public static final String STRICT = "strict";
  public static final String LANES = "lanes";

  private final Map<TopicPartitionKey, Long> offsets = new HashMap<>();

  public List<Input> inputs(List<Barriers.Published> messages) {
    List<Input> out = new ArrayList<>();
    for (Barriers.Published p : messages) {
      out.add(
          input(
              p.onStrictTopic()
                  ? new TopicPartitionKey(STRICT, 0)
                  : new TopicPartitionKey(LANES, p.lane()),
              p.kind(),
              p.bytes(),
              p.key()));
    }
    return out;
  }

  public Input input(TopicPartitionKey tp, MessageKind kind, byte[] bytes, String key) {
    long offset = offsets.merge(tp, 1L, Long::sum) - 1;
    return Input.raw(tp, offset, kind, bytes, tp + "@" + offset + " key " + key);
  }

  /**
   * Delivers {@code inputs} one record per batch, as a consumer with small fetches would, and
   * honours the pipeline's rewinds as Kafka does after {@code context.offset}: delivery goes on
   * from the record asked for.
   */
  public static void oneByOne(SinkEngine p, List<Input> inputs) {
    deliver(p, inputs, 1, i -> {});
  }

  /**
   * One record per batch; {@code afterDelivery} hears how many were delivered so far (a fault's
   * moment).
   */
  public static void oneByOne(
      SinkEngine p, List<Input> inputs, java.util.function.IntConsumer afterDelivery) {
    deliver(p, inputs, 1, afterDelivery);
  }

  /** Delivers {@code inputs} in one batch, and what a rewind asks for again in the next. */
  public static void batched(SinkEngine p, List<Input> inputs) {
    deliver(p, inputs, Integer.MAX_VALUE, i -> {});
  }

  private static void deliver(
      SinkEngine p, List<Input> inputs, int batch, java.util.function.IntConsumer afterDelivery) {
    int i = 0;
    for (int delivered = 0; i < inputs.size(); delivered++) {
      if (delivered > 20 * inputs.size() + 100) {
        throw new AssertionError("the pipeline keeps asking for the same records again");
      }
      int end = (int) Math.min(inputs.size(), (long) i + batch);
      p.accept(inputs.subList(i, end));
      afterDelivery.accept(delivered + 1);
      Map<TopicPartitionKey, Long> rewinds = p.takeRewinds();
      i = end;
      for (Map.Entry<TopicPartitionKey, Long> r : rewinds.entrySet()) {
        for (int j = 0; j < inputs.size(); j++) {
          Input in = inputs.get(j);
          if (in.partition().equals(r.getKey()) && in.offset() == r.getValue()) {
            i = Math.min(i, j);
            break;
          }
        }
      }
    }
    p.poll();
  }

  /** The next offset of {@code tp} (how many records were fed to it). */
  public long next(TopicPartitionKey tp) {
    return offsets.getOrDefault(tp, 0L);
  }

  public static List<Barriers.Published> concat(List<?>... lists) {
    List<Barriers.Published> out = new ArrayList<>();
    for (List<?> l : lists) {
      for (Object o : l) {
        out.add((Barriers.Published) o);
      }
    }
    return out;
  }

  /** Only the messages on the strict topic, or only those of the lanes. */
  public static List<Barriers.Published> strictOnly(List<Barriers.Published> all) {
    return all.stream().filter(Barriers.Published::onStrictTopic).toList();
  }

  public static List<Barriers.Published> lanesOnly(List<Barriers.Published> all) {
    return all.stream().filter(p -> !p.onStrictTopic()).toList();
  }

  public static Barriers.Published envelope(byte[] bytes, String key) {
    return new Barriers.Published(MessageKind.ENVELOPE, bytes, -1, key);
  }
}
