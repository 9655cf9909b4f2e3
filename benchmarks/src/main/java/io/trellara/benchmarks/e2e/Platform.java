package io.trellara.benchmarks.e2e;

import io.trellara.testplatform.ConnectWorker;
import io.trellara.testplatform.KafkaBroker;
import io.trellara.testplatform.PostgresServer;

/**
 * What every leg of one run shares: the two durable PostgreSQL servers, and for the Trellara legs the broker
 * and the Connect worker. Each leg brings its own databases, topics, connectors or subscription.
 */
record Platform(PostgresServer sourceServer, PostgresServer targetServer, KafkaBroker broker, ConnectWorker worker) {
}
