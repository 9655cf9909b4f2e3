package io.trellara.source.replication.ack;

import io.trellara.connect.common.liveness.Stage;
import io.trellara.connect.common.liveness.Stall;
import io.trellara.connect.common.liveness.StalledException;
import io.trellara.connect.common.liveness.Watchdog;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producer's liveness: records handed to Kafka Connect by poll() and not yet acknowledged
 * (commitRecord) are a wait, and each acknowledgement is progress. Past the watchdog's bound the
 * next poll() fails with {@code STALLED}, naming the oldest unacknowledged transaction, how many
 * records Kafka has not acknowledged and the topic. Kafka Connect calls poll() while its producer
 * accepts sends; one blocked inside {@code send} (its buffer full, or no metadata) is bounded by
 * the producer's own {@code max.block.ms}.
 */
public final class PublishLiveness {
  /** The stage's name in JMX and in a {@code STALLED} failure. */
  public static final String STAGE = "producer";

  static final String WAITING_FOR = "Kafka to acknowledge the records handed to Kafka Connect";

  private static final Logger LOG = LoggerFactory.getLogger(PublishLiveness.class);

  private final AckTracker acks;
  private final Stage stage;
  private final AtomicReference<StalledException> stalled = new AtomicReference<>();

  public PublishLiveness(Watchdog watchdog, AckTracker acks) {
    this.acks = acks;
    this.stage = watchdog.stage(STAGE, this::stalled);
  }

  private void stalled(Stall stall) {
    AckTracker.Oldest oldest = acks.oldestUnacknowledged();
    String detail =
        oldest == null
            ? "every record has been acknowledged since"
            : oldest.totalRecords()
                + " record(s) of "
                + oldest.transactions()
                + " transaction(s) not acknowledged; the oldest is transaction "
                + oldest.key()
                + " on topic "
                + oldest.topic()
                + " ("
                + oldest.records()
                + " of its records unacknowledged). The brokers do not answer the producer (check"
                + " the brokers and the worker's connection to them); the task fails, and its"
                + " restart publishes these transactions again from the slot";
    StalledException e = new StalledException(stall, detail, null);
    if (stalled.compareAndSet(null, e)) {
      LOG.error("{}; the task fails at its next poll()", e.getMessage());
    }
  }

  /** poll() handed records to Connect. */
  public void handed() {
    synchronized (acks) {
      if (acks.outstandingRecords() > 0) {
        stage.waiting(WAITING_FOR);
      }
    }
  }

  /** Kafka acknowledged a record. */
  public void acknowledged() {
    synchronized (acks) {
      if (acks.outstandingRecords() == 0) {
        stage.idle();
      } else {
        stage.progress();
      }
    }
  }

  /** Throws the {@code STALLED} failure once the bound has passed without an acknowledgement. */
  public void check() {
    StalledException e = stalled.get();
    if (e != null) {
      throw e;
    }
  }

  public Stage stage() {
    return stage;
  }
}
