package io.trellara.source.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.source.startup.SourceStartException;
import io.trellara.source.startup.SourceStartup;
import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.EitherPlatform;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TrellaraStack;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * What a role on the source database that can log in, but is not trusted, can do to a deployed
 * source connector, and what the connector refuses: a source database that is not UTF8 (validate
 * and the task's start), PUBLIC still able to write logical messages (validate, with what to run),
 * and forged or malformed DDL messages (the task stays RUNNING and publishes what follows).
 */
@EitherPlatform
class UntrustedSourceUserIT {
  static final TrellaraStack STACK = TrellaraStack.get();
  static final Duration WAIT = Duration.ofSeconds(90);

  @Test
  void aSqlAsciiDatabaseIsRefusedByValidateAndByTheTaskStart() throws Exception {
    try (TestScope scope = STACK.newScope("sqlascii")) {
      PostgresDatabase db = scope.sourceDatabase();
      String latin = db.name() + "_latin";
      db.server()
          .execute(
              "postgres",
              "CREATE DATABASE "
                  + latin
                  + " ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0");
      try {
        db.server()
            .execute(
                latin,
                "CREATE TABLE t (id int PRIMARY KEY, name text)",
                // a Latin-1 'é': SQL_ASCII stores the byte unchecked
                "INSERT INTO t VALUES (1, E'caf\\xe9')");
        Map<String, String> config =
            new HashMap<>(
                ConnectorConfigs.source(scope, db, scope.topic("strict"), "public.t", Map.of()));
        config.put("database.dbname", latin);
        config.put("database.id", latin);

        ConnectRestClient.ValidationResult r =
            STACK.rest().validate(ConnectorConfigs.SOURCE_CLASS, config);
        assertThat(r.errors().get("database.dbname"))
            .singleElement()
            .asString()
            .contains("server_encoding SQL_ASCII", "text values as UTF-8", "ENCODING 'UTF8'");

        TrellaraSourceConfig parsed = new TrellaraSourceConfig(config);
        assertThatThrownBy(
                () ->
                    SourceStartup.start(
                        SourceSettingsMapper.settings(parsed),
                        SourceSettingsMapper.startupOptions(parsed, "sqlascii"),
                        partition -> null))
            .isInstanceOf(SourceStartException.class)
            .hasMessageContaining("The source cannot start")
            .hasMessageContaining("server_encoding SQL_ASCII");
        try (Connection c = db.server().connect(latin);
            Statement st = c.createStatement();
            var rs = st.executeQuery("SELECT count(*) FROM pg_replication_slots")) {
          rs.next();
          assertThat(rs.getLong(1)).as("refused before creating anything").isZero();
        }
      } finally {
        db.server().execute("postgres", "DROP DATABASE " + latin + " WITH (FORCE)");
      }
    }
  }

  @Test
  void validateReportsThatPublicCanWriteLogicalMessagesAndWhatToRun() {
    try (TestScope scope = STACK.newScope("emitters")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute("CREATE TABLE t (id int PRIMARY KEY)");
      Map<String, String> config =
          ConnectorConfigs.source(
              scope, db, scope.topic("strict"), "public.t", Map.of("ddl.capture.install", "false"));
      assertThat(
              STACK
                  .rest()
                  .validate(ConnectorConfigs.SOURCE_CLASS, config)
                  .errors()
                  .get("ddl.capture.enabled"))
          .singleElement()
          .asString()
          .contains(
              "PUBLIC can execute pg_logical_emit_message(",
              "REVOKE EXECUTE ON FUNCTION pg_catalog.pg_logical_emit_message(",
              "FROM PUBLIC");
      db.execute(
          "DO $$ DECLARE f regprocedure; BEGIN FOR f IN SELECT oid::regprocedure FROM pg_proc"
              + " WHERE proname = 'pg_logical_emit_message' LOOP EXECUTE format('REVOKE EXECUTE ON"
              + " FUNCTION %s FROM PUBLIC', f); END LOOP; END $$");
      assertThat(STACK.rest().validate(ConnectorConfigs.SOURCE_CLASS, config).messages()).isEmpty();
      Map<String, String> misspelt = new HashMap<>(config);
      misspelt.put("ddl.message.roles", "postgres,App_Owner");
      assertThat(
              STACK
                  .rest()
                  .validate(ConnectorConfigs.SOURCE_CLASS, misspelt)
                  .errors()
                  .get("ddl.message.roles"))
          .singleElement()
          .asString()
          .contains("Role \"App_Owner\" of ddl.message.roles does not exist");
    }
  }

  @Test
  void forgedAndMalformedDdlMessagesLeaveTheTaskRunningAndTheNextTransactionPublished()
      throws Exception {
    try (TestScope scope = STACK.newScope("forgedDdl")) {
      PostgresDatabase db = scope.sourceDatabase();
      db.execute(
          "CREATE TABLE accounts (id int PRIMARY KEY, balance int)",
          "DO $$ BEGIN CREATE ROLE trellara_it_mallory LOGIN PASSWORD 'mallory'; EXCEPTION WHEN"
              + " duplicate_object THEN NULL; END $$");
      String topic = scope.createTopic("strict", 1);
      String name =
          scope.createConnector(
              "source", ConnectorConfigs.source(scope, db, topic, "public.accounts", Map.of()));
      STACK.rest().awaitRunning(name);

      // the connector's start installed the trigger and revoked EXECUTE from PUBLIC
      try (Connection mallory =
          DriverManager.getConnection(db.jdbcUrl(), "trellara_it_mallory", "mallory")) {
        assertThatThrownBy(
                () ->
                    execute(
                        mallory,
                        "SELECT pg_logical_emit_message(true, 'trellara.ddl', '{\"command_tag\":"
                            + " \"ALTER TABLE\", \"statement\": \"ALTER TABLE accounts RENAME TO"
                            + " x\", \"relations\": \"\\\"public\\\".\\\"accounts\\\":0\","
                            + " \"role\": \"postgres\"}')"))
            .isInstanceOf(SQLException.class)
            .hasMessageContaining("permission denied for function pg_logical_emit_message");
      }
      // what a role with EXECUTE could still write: not the trigger's JSON, and a forged RENAME
      // that names no role (as every such message did before the trigger recorded one)
      db.executeInTransaction(
          "INSERT INTO accounts VALUES (1, 10)",
          "SELECT pg_logical_emit_message(true, 'trellara.ddl', 'not json\n2026-12-03 INFO forged')",
          "SELECT pg_logical_emit_message(true, 'trellara.ddl', '{\"command_tag\": \"ALTER"
              + " TABLE\", \"statement\": \"ALTER TABLE accounts RENAME TO x\", \"relations\":"
              + " \"\\\"public\\\".\\\"accounts\\\":0\", \"temporary\": \"false\"}')");
      db.execute("INSERT INTO accounts VALUES (2, 20)");

      List<TransactionEnvelope> envelopes = SourceConnectorIT.awaitEnvelopes(topic, 2);
      assertThat(envelopes).hasSize(2);
      assertThat(envelopes).allSatisfy(e -> assertThat(e.getDdlEventsCount()).isZero());
      assertThat(envelopes.get(0).getChangesCount()).isEqualTo(1);
      assertThat(envelopes.get(1).getChangesCount()).isEqualTo(1);
      ObjectName bean =
          new ObjectName("io.trellara:type=source-task,connector=" + name + ",task=0");
      MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
      await().atMost(WAIT).until(() -> (Long) jmx.getAttribute(bean, "DdlMessagesRefused") == 2);
      assertThat(STACK.rest().status(name).tasks())
          .singleElement()
          .satisfies(t -> assertThat(t.state()).isEqualTo("RUNNING"));
      db.execute("DROP ROLE trellara_it_mallory");
    }
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
