package io.trellara.testplatform;

import java.util.Optional;

/**
 * The default platform: the zonky PostgreSQL servers and the in-JVM Kafka broker of this package.
 */
final class EmbeddedServers implements TestServers {

  static final EmbeddedServers INSTANCE = new EmbeddedServers();

  private EmbeddedServers() {}

  @Override
  public String name() {
    return "embedded";
  }

  @Override
  public Optional<String> unavailable() {
    return Optional.empty();
  }

  @Override
  public PostgresServer postgres(String name) {
    return PostgresServer.builder().name(name).build();
  }

  @Override
  public KafkaBroker kafka(KafkaBroker.Builder embedded) {
    return embedded.build();
  }
}
