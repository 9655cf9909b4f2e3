package io.trellara.quickstart;

/**
 * The quickstart's quiet logging: its own progress lines on stdout, only warnings and errors from
 * the stack.
 */
final class Logging {

  private Logging() {}

  /**
   * The test platform's jar carries a {@code log4j2-test.xml} (found before {@code log4j2.xml});
   * the quickstart points log4j2 at its own file, quiet: Kafka, Connect, zonky and PostgreSQL at
   * WARN.
   */
  static void prepare() {
    if (System.getProperty("log4j2.configurationFile") == null) {
      System.setProperty("log4j2.configurationFile", "log4j2.xml");
    }
    // Jersey (Connect's REST server) logs through java.util.logging
    java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.SEVERE);
    for (java.util.logging.Handler h : java.util.logging.Logger.getLogger("").getHandlers()) {
      h.setLevel(java.util.logging.Level.SEVERE);
    }
  }

  /** All log4j2 loggers OFF (by reflection: log4j-core is a runtime dependency). */
  static void silence() {
    setLevel("", "OFF");
  }

  static void setLevel(String logger, String levelName) {
    try {
      Class<?> level = Class.forName("org.apache.logging.log4j.Level");
      Class.forName("org.apache.logging.log4j.core.config.Configurator")
          .getMethod("setAllLevels", String.class, level)
          .invoke(null, logger, level.getField(levelName).get(null));
    } catch (ReflectiveOperationException | LinkageError ignored) {
      // another logging backend: keep its output
    }
  }
}
