package io.trellara.sink.connect;

import static org.awaitility.Awaitility.await;

import io.trellara.testplatform.ConnectorConfigs;
import io.trellara.testplatform.PostgresDatabase;
import io.trellara.testplatform.TestScope;
import io.trellara.testplatform.TrellaraStack;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Source and sink deployed over REST between two real PostgreSQL servers, and table comparisons. */
final class Pipelines {
    static final TrellaraStack STACK = TrellaraStack.get();
    static final Duration WAIT = Duration.ofSeconds(120);

    private Pipelines() {
    }

    /** Runs the same DDL on source and target (the initial schema is not replicated). */
    static void schema(PostgresDatabase source, PostgresDatabase target, String... ddl) {
        source.execute(ddl);
        target.execute(ddl);
    }

    static String deploySource(TestScope scope, PostgresDatabase db, String topic, String tables,
                               Map<String, String> extra) {
        String name = scope.createConnector("source", ConnectorConfigs.source(scope, db, topic, tables, extra));
        STACK.rest().awaitRunning(name);
        return name;
    }

    static String deploySink(TestScope scope, String connector, PostgresDatabase target, String topic,
                             Map<String, String> extra) {
        String name = scope.createConnector(connector, ConnectorConfigs.sink(target, topic, extra));
        STACK.rest().awaitRunning(name);
        return name;
    }

    /** Rows of a table as text, in key order: the comparison every equality check uses. */
    static List<List<Object>> rows(PostgresDatabase db, String table, String orderBy) {
        return db.query("SELECT t::text FROM " + table + " t ORDER BY " + orderBy);
    }

    static long appliedTransactions(PostgresDatabase target) {
        return target.queryLong("SELECT count(*) FROM trellara_sink.applied_transactions");
    }

    static void awaitEqual(PostgresDatabase source, PostgresDatabase target, String table, String orderBy) {
        await().atMost(WAIT).until(() -> {
            try {
                return Objects.equals(rows(source, table, orderBy), rows(target, table, orderBy));
            } catch (RuntimeException e) {
                return false; // the target table may not have caught up with a replayed DDL yet
            }
        });
    }
}
