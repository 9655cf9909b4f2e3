package io.trellara.benchmarks.e2e;

import io.trellara.testplatform.ConnectRestClient;
import io.trellara.testplatform.KafkaBroker;
import io.trellara.testplatform.PostgresServer;
import java.util.function.LongSupplier;

/**
 * What every leg of one run shares: the two durable PostgreSQL servers, and for the Trellara legs
 * the broker and the Connect worker (its REST API, and the CPU its JVM used so far when it runs in
 * a JVM of its own, else -1; and its threads' CPU by role, or null). Each leg brings its own
 * databases, topics, connectors or subscription.
 */
record Platform(
    PostgresServer sourceServer,
    PostgresServer targetServer,
    KafkaBroker broker,
    ConnectRestClient worker,
    LongSupplier workerCpuNanos,
    WorkerThreads workerThreads) {}
