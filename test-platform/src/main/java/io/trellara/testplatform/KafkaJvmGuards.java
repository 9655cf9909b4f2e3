package io.trellara.testplatform;

import org.apache.kafka.common.utils.internals.Exit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps in-JVM Kafka components from ending or racing the host JVM.
 *
 * <ul>
 *   <li>Kafka calls {@code Exit.exit}/{@code Exit.halt} on fatal errors; in a test JVM that would
 *       kill the test run without a report. Both are replaced by an exception in the calling
 *       thread, logged at ERROR.
 *   <li>{@code Connect.start()} registers its own JVM shutdown hook. At JVM exit it ran
 *       concurrently with the platform's ordered shutdown, and when the broker went first the
 *       worker hung in its shutdown (Surefire killed the fork after 30 s). Worker start-up
 *       therefore suppresses that hook; whoever starts a {@link ConnectWorker} stops it ({@link
 *       TrellaraStack} does, in order: worker, broker, PostgreSQL).
 * </ul>
 */
final class KafkaJvmGuards {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaJvmGuards.class);
  private static boolean installed;

  private KafkaJvmGuards() {}

  static synchronized void installExitGuards() {
    if (installed) {
      return;
    }
    installed = true;
    Exit.setExitProcedure(
        (status, message) -> {
          LOG.error(
              "Kafka asked the JVM to exit with status {}: {} (refused in this JVM)",
              status,
              message);
          throw new IllegalStateException("Kafka called Exit.exit(" + status + "): " + message);
        });
    Exit.setHaltProcedure(
        (status, message) -> {
          LOG.error(
              "Kafka asked the JVM to halt with status {}: {} (refused in this JVM)",
              status,
              message);
          throw new IllegalStateException("Kafka called Exit.halt(" + status + "): " + message);
        });
  }

  /** Runs the action with Kafka's {@code Exit.addShutdownHook} turned into a no-op. */
  static synchronized <T> T withoutKafkaShutdownHooks(java.util.function.Supplier<T> action) {
    Exit.setShutdownHookAdder((name, hook) -> LOG.debug("suppressed Kafka shutdown hook {}", name));
    try {
      return action.get();
    } finally {
      Exit.resetShutdownHookAdder();
    }
  }
}
