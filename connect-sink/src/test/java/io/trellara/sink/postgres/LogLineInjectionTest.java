package io.trellara.sink.postgres;

import static io.trellara.sink.postgres.Tx.key;
import static io.trellara.sink.postgres.Tx.rel;
import static io.trellara.sink.postgres.Tx.tx;
import static io.trellara.sink.postgres.Tx.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.trellara.sink.postgres.schema.RelationMapper;
import io.trellara.sink.postgres.settings.ApplyOptions;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.List;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.WriterAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.layout.PatternLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A topic writer chooses relation names, dataset ids and DDL text: a newline in one must not forge
 * a second line in the worker's log. The log is captured as the worker would write it, one event
 * per line.
 */
class LogLineInjectionTest {
  @RegisterExtension static final PgTarget pg = new PgTarget();
  private static final String FORGED = "\nERROR [worker] forged line";
  private final StringWriter log = new StringWriter();
  private WriterAppender appender;

  @BeforeEach
  void capture() {
    pg.reset();
    pg.exec("CREATE TABLE app.accounts (id int PRIMARY KEY, balance int NOT NULL)");
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    Configuration config = ctx.getConfiguration();
    appender =
        WriterAppender.newBuilder()
            .setName("capture")
            .setTarget(log)
            .setLayout(PatternLayout.newBuilder().withPattern("%p %c{1} %m%n").build())
            .build();
    appender.start();
    LoggerConfig sink = new LoggerConfig("io.trellara.sink", Level.INFO, false);
    sink.addAppender(appender, Level.INFO, null);
    config.addLogger("io.trellara.sink", sink);
    ctx.updateLoggers();
  }

  @AfterEach
  void release() {
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    ctx.getConfiguration().removeLogger("io.trellara.sink");
    ctx.updateLoggers();
    appender.stop();
  }

  private List<String> lines() {
    return Arrays.asList(log.toString().split("\n"));
  }

  @Test
  void aNewlineInADatasetIdStaysOnTheLineOfItsLogEvent() {
    try (TransactionApplier a =
        new TransactionApplier(
            pg.connections(),
            RelationMapper.builder().allow(List.of("app.*")).build(),
            ApplyOptions.defaults("s"))) {
      a.apply(
          tx(0x10)
              .dataset("flow" + FORGED)
              .insert(
                  rel("app", "accounts"), key("id", "integer", "1"), val("balance", "integer", "1"))
              .source());
    }
    assertThat(log.toString())
        .contains("The first transaction of flow pg-test/flow\\nERROR [worker] forged line");
    assertThat(lines()).noneMatch(l -> l.startsWith("ERROR"));
    assertThat(lines()).allMatch(l -> l.startsWith("INFO ") || l.startsWith("WARN "));
  }

  /** The refusal names the relation, escaped: logged by the task, it is one line. */
  @Test
  void aNewlineInARelationNameStaysOnTheLineOfTheRefusal() {
    Throwable refused;
    try (TransactionApplier a =
        new TransactionApplier(
            pg.connections(),
            RelationMapper.builder().allow(List.of("app.accounts")).build(),
            ApplyOptions.defaults("s"))) {
      refused =
          catchThrowable(
              () ->
                  a.apply(
                      tx(0x10)
                          .insert(rel("app", "accounts" + FORGED), key("id", "integer", "1"))
                          .source()));
    }
    assertThat(refused).hasMessageContaining("RELATION_REFUSED");
    assertThat(refused.getMessage())
        .doesNotContain("\n")
        .contains("accounts\\nERROR [worker] forged line");
    LogManager.getLogger("io.trellara.sink.connect.TrellaraSinkTask").error(refused.getMessage());
    assertThat(lines().stream().filter(l -> !l.startsWith("INFO CommitOrder")))
        .singleElement()
        .asString()
        .startsWith("ERROR TrellaraSinkTask RELATION_REFUSED");
  }
}
