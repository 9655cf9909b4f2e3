package io.trellara.sink.connect;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.auth.AuthKey;
import io.trellara.protocol.auth.RecordMac;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.sink.postgres.Barriers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The vocabulary of {@link ForgedRecordsIT}: a record as a topic writer sends it (well-formed,
 * correctly checksummed), an attack (its records and the SQL that finds its harm), and how a forged
 * record is signed when authentication is on (it cannot be signed with the real key).
 */
final class ForgedRecords {
  private ForgedRecords() {}

  /** The key the real source holds; forged records never carry its tag. */
  static final AuthKey REAL = AuthKey.ofText("k1", "the-real-source-secret-0001");

  /** A key the attacker made up, under the real key's id (so the tag is simply wrong). */
  static final AuthKey GUESSED = AuthKey.ofText("k1", "an-attackers-guess-at-it-01");

  /** A key id the sink was never given. */
  static final AuthKey OWN = AuthKey.ofText("evil", "the-attackers-own-secret-01");

  /** One record written straight to the topic. */
  record Forged(int partition, MessageKind kind, String key, byte[] bytes) {
    static Forged envelope(TransactionEnvelope e) {
      return envelope(0, e);
    }

    static Forged envelope(int partition, TransactionEnvelope e) {
      return new Forged(
          partition,
          MessageKind.ENVELOPE,
          e.getSourceId() + ':' + e.getCommitLsn() + ':' + e.getTransactionId(),
          TrellaraCodec.encode(e).bytes());
    }

    static List<Forged> barrier(List<Barriers.Published> records) {
      return records.stream().map(r -> new Forged(0, r.kind(), r.key(), r.bytes())).toList();
    }
  }

  /**
   * One attack: its name, the records it writes (in order, after the baseline transaction), a query
   * on the target that returns a positive count when harm was done, and what else it needs: the
   * text its refusal must carry with authentication off ({@code refusal}: each string must be in
   * the task's trace, one starting with {@code !} must not), sink settings of its own ({@code
   * config}, over the defaults), SQL run on the target after the reset ({@code setup}), and a pause
   * after its records ({@code settle}) after which the harm query is asked before the probe is sent
   * (for harm that lasts only while nothing follows, such as a lock held).
   */
  record Attack(
      String name,
      List<Forged> records,
      String harmQuery,
      int strictPartitions,
      List<String> refusal,
      Map<String, String> config,
      List<String> setup,
      Duration settle) {
    Attack(String name, List<Forged> records, String harmQuery, int strictPartitions) {
      this(
          name,
          records,
          harmQuery,
          strictPartitions,
          List.of(),
          Map.of(),
          List.of(),
          Duration.ZERO);
    }

    Attack(String name, List<Forged> records, String harmQuery) {
      this(name, records, harmQuery, 1);
    }

    static Attack of(String name, Forged record, String harmQuery) {
      return new Attack(name, List.of(record), harmQuery);
    }

    /** Refused with authentication off only when the trace carries each of {@code expected}. */
    Attack refusedAs(String... expected) {
      return new Attack(
          name, records, harmQuery, strictPartitions, List.of(expected), config, setup, settle);
    }

    /** A sink setting of this attack's own. */
    Attack with(String key, String value) {
      Map<String, String> c = new java.util.LinkedHashMap<>(config);
      c.put(key, value);
      return new Attack(name, records, harmQuery, strictPartitions, refusal, c, setup, settle);
    }

    /** SQL run on the target after the reset, before the sink starts. */
    Attack given(String... sql) {
      return new Attack(
          name, records, harmQuery, strictPartitions, refusal, config, List.of(sql), settle);
    }

    Attack settle(Duration pause) {
      return new Attack(name, records, harmQuery, strictPartitions, refusal, config, setup, pause);
    }
  }

  /** How the attacker's records are signed when the sink requires authentication. */
  enum Forgery {
    NO_HEADER(null),
    BAD_TAG(GUESSED),
    UNKNOWN_KEY_ID(OWN);

    final AuthKey key;

    Forgery(AuthKey key) {
      this.key = key;
    }
  }

  /** What the judge found. */
  enum Verdict {
    /** The sink refused the attack by name and nothing of it reached the target. */
    BLOCKED,
    /** The sink took the records and no harm came of them (later transactions still apply). */
    HARMLESS,
    /** Harm done: the harm query found it, or a real transaction after the attack was refused. */
    FAILED
  }

  /** Writes records to a topic, signed (or not) as {@code signer} says. */
  static void send(
      KafkaProducer<byte[], byte[]> p,
      String topic,
      List<Forged> records,
      Function<Forged, AuthKey> signer) {
    for (Forged f : records) {
      ProducerRecord<byte[], byte[]> r =
          new ProducerRecord<>(
              topic, f.partition(), f.key().getBytes(StandardCharsets.UTF_8), f.bytes());
      r.headers().add(MessageKind.HEADER, f.kind().wireName().getBytes(StandardCharsets.UTF_8));
      AuthKey key = signer.apply(f);
      if (key != null) {
        r.headers().add("trellara-auth", RecordMac.sign(key, topic, f.partition(), f.bytes()));
      }
      p.send(r);
    }
    p.flush();
  }

  static List<Forged> list(Forged... records) {
    return new ArrayList<>(List.of(records));
  }
}
