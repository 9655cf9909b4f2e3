package io.trellara.source.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.errors.ConnectException;
import org.junit.jupiter.api.Test;

class TrellaraSourceConfigTest {

  /** A complete strict-mode config whose producer overrides admit the default 64 MiB envelope. */
  static Map<String, String> valid() {
    Map<String, String> c = new HashMap<>();
    c.put("name", "unit-source");
    c.put("database.hostname", "127.0.0.1");
    c.put("database.dbname", "shop");
    c.put("database.user", "u");
    c.put("source.id", "s");
    c.put("database.id", "d");
    c.put("dataset.id", "ds");
    c.put("table.include.list", "public.t");
    c.put("kafka.bootstrap.servers", "127.0.0.1:1");
    c.put("producer.override.max.request.size", "67125248");
    c.put("producer.override.buffer.memory", "134217728");
    return c;
  }

  static Map<String, String> with(String... kv) {
    Map<String, String> c = valid();
    for (int i = 0; i < kv.length; i += 2) {
      if (kv[i + 1] == null) {
        c.remove(kv[i]);
      } else {
        c.put(kv[i], kv[i + 1]);
      }
    }
    return c;
  }

  static Map<String, String> errors(Map<String, String> props) {
    Map<String, String> m = new HashMap<>();
    for (String[] e : new TrellaraSourceConfig(props).crossFieldErrors()) {
      m.merge(e[0], e[1], (a, b) -> a + "\n" + b);
    }
    return m;
  }

  @Test
  void theIdentitiesDefaultToTheConnectorsNameAndTheDatabaseName() {
    TrellaraSourceConfig c =
        new TrellaraSourceConfig(with("source.id", null, "database.id", null, "dataset.id", null));
    assertThat(c.sourceId()).isEqualTo("unit-source");
    assertThat(c.databaseId()).isEqualTo("shop");
    assertThat(c.datasetId()).isEqualTo("shop");
    assertThat(c.strictTopic()).isEqualTo("trellara.shop.strict");
    assertThat(SourceSettingsMapper.settings(c).sourceId()).isEqualTo("unit-source");
    assertThat(SourceSettingsMapper.settings(c).databaseId()).isEqualTo("shop");
    assertThat(SourceSettingsMapper.settings(c).datasetId()).isEqualTo("shop");
    assertThat(c.crossFieldErrors()).isEmpty();
    TrellaraSourceConfig set = new TrellaraSourceConfig(valid());
    assertThat(List.of(set.sourceId(), set.databaseId(), set.datasetId()))
        .containsExactly("s", "d", "ds");
    assertThat(errors(with("source.id", null, "name", null)).get("source.id"))
        .contains("names no connector");
  }

  @Test
  void aHeartbeatActionQueryNeedsAHeartbeatAndTheWalGuardIsMapped() {
    String insert = "INSERT INTO heartbeat VALUES (1, now())";
    assertThat(errors(with("heartbeat.action.query", insert)))
        .containsKey("heartbeat.action.query");
    Map<String, String> ok =
        with(
            "heartbeat.action.query",
            insert,
            "heartbeat.interval.ms",
            "10000",
            "slot.lag.warn.bytes",
            "5000");
    assertThat(errors(ok)).doesNotContainKey("heartbeat.action.query");
    var guard = SourceSettingsMapper.settings(new TrellaraSourceConfig(ok)).walGuard();
    assertThat(guard.heartbeatActionQuery()).isEqualTo(insert);
    assertThat(guard.slotLagWarnBytes()).isEqualTo(5000);
    assertThat(SourceSettingsMapper.settings(new TrellaraSourceConfig(valid())).walGuard())
        .isEqualTo(io.trellara.source.pg.WalGuard.DEFAULT);
  }

  @Test
  void recordAuthenticationNeedsKeysAListedSigningKeyAndProtobufBytes() {
    assertThat(errors(with("record.authentication", "required")))
        .containsKey("record.authentication");
    assertThat(
            errors(
                with(
                    "record.authentication.keys", "k1=one-source-secret-001",
                    "record.authentication.key.id", "k9")))
        .hasEntrySatisfying("record.authentication", m -> assertThat(m).contains("k9"));
    assertThat(errors(with("record.authentication.keys", "k1=short")))
        .hasEntrySatisfying("record.authentication", m -> assertThat(m).contains("at least 16"));
    assertThat(
            errors(
                with(
                    "record.authentication.keys", "k1=one-source-secret-001",
                    "value.converter.render", "json")))
        .containsKey("value.converter.render");
    assertThat(errors(with("record.authentication.keys", "k1=one-source-secret-001"))).isEmpty();
  }

  @Test
  void aCompleteConfigWithSizedProducerHasNoCrossFieldError() {
    assertThat(errors(valid())).isEmpty();
  }

  @Test
  void errorsToleranceOtherThanNoneIsRefusedBecauseASkippedRecordLosesATransaction() {
    assertThat(errors(with("errors.tolerance", "all")).get("errors.tolerance"))
        .contains("errors.tolerance=all is refused", "part of one", "data loss");
    assertThat(errors(with("errors.tolerance", "none"))).isEmpty();
    assertThat(errors(with("errors.tolerance", " NONE "))).isEmpty();
  }

  @Test
  void anyTransformIsRefusedAndAnEmptyListIsNot() {
    assertThat(
            errors(
                    with(
                        "transforms",
                        "drop",
                        "transforms.drop.type",
                        "org.apache.kafka.connect.transforms.Filter"))
                .get("transforms"))
        .contains("transforms=drop is refused", "loses or corrupts data");
    assertThat(errors(with("transforms", " "))).isEmpty();
  }

  @Test
  void kafkaProducerDefaultsCannotCarryTheDefaultEnvelopeAndTheMessageSaysWhichSettingToChange() {
    String e =
        errors(
                with(
                    "producer.override.max.request.size",
                    null,
                    "producer.override.buffer.memory",
                    null))
            .get("dataset.strict.max_envelope_bytes");
    assertThat(e)
        .contains(
            "67125248 bytes (dataset.strict.max_envelope_bytes=67108864 plus 16384",
            "producer.override.max.request.size is not set, so Kafka's default 1048576 applies",
            "worker-level producer.max.request.size is invisible to the connector",
            "producer.override.buffer.memory is not set, so Kafka's default 33554432 applies",
            "Set producer.override.buffer.memory to at least 67125248");
  }

  @Test
  void aBufferMemoryBelowTheEnvelopeCapIsRefusedEvenWithALargeRequestSize() {
    // the 84 MB envelope under a 128 MiB cap that died on the producer's 32 MiB buffer.memory
    String e =
        errors(
                with(
                    "dataset.strict.max_envelope_bytes",
                    Integer.toString(128 * 1024 * 1024),
                    "producer.override.max.request.size",
                    "268435456",
                    "producer.override.buffer.memory",
                    null))
            .get("dataset.strict.max_envelope_bytes");
    assertThat(e).contains("buffer.memory").doesNotContain("producer.override.max.request.size=");
  }

  @Test
  void chunkedFlowsAreSizedByTheChunkAndFitKafkasDefaults() {
    Map<String, String> chunked =
        with(
            "dataset.strict_chunking.max_changes_per_chunk",
            "1000",
            "producer.override.max.request.size",
            null,
            "producer.override.buffer.memory",
            null);
    assertThat(errors(chunked)).isEmpty();
    assertThat(new TrellaraSourceConfig(chunked).largestRecordBytes())
        .isEqualTo(1_000_000L + 16_384L);
    Map<String, String> big = new HashMap<>(chunked);
    big.put("dataset.chunk.max_bytes", "4000000");
    assertThat(errors(big).get("dataset.chunk.max_bytes")).contains("max.request.size");
  }

  @Test
  void slotNamesFollowPostgresqlsRule() {
    for (String bad : List.of("Orders", "orders-slot", "a b", "x".repeat(64), "ü")) {
      assertThatThrownBy(() -> new TrellaraSourceConfig(with("slot.name", bad)))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("slot.name")
          .hasMessageContaining("lower-case letters");
    }
    assertThat(
            new TrellaraSourceConfig(with("slot.name", "orders_slot_1" + "x".repeat(50)))
                .getString("slot.name"))
        .hasSize(63);
  }

  @Test
  void publicationNamesAreIdentifiersOfAtMost63BytesWithoutNul() {
    assertThatThrownBy(() -> new TrellaraSourceConfig(with("publication.name", "ä".repeat(32))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("64 bytes long")
        .hasMessageContaining("at most 63 bytes");
    assertThatThrownBy(() -> new TrellaraSourceConfig(with("publication.name", "a\0b")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("NUL");
    assertThat(
            new TrellaraSourceConfig(with("publication.name", "Shop's \"orders\", v2"))
                .getString("publication.name"))
        .isEqualTo("Shop's \"orders\", v2");
  }

  @Test
  void aHostWithAPathOrParametersIsRefused() {
    assertThatThrownBy(
            () -> new TrellaraSourceConfig(with("database.hostname", "db/shop?sslmode=disable")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'db/shop?sslmode=disable' is not a host name")
        .hasMessageContaining("no path, parameters or user");
    assertThat(
            new TrellaraSourceConfig(with("database.hostname", "::1"))
                .getString("database.hostname"))
        .isEqualTo("::1");
  }

  @Test
  void aHostListIsAcceptedAndSlotFailoverDefaultsToOffAndReachesTheEndpoint() {
    TrellaraSourceConfig list =
        new TrellaraSourceConfig(with("database.hostname", "pg-a:5433,pg-b:5434"));
    assertThat(list.getBoolean("slot.failover")).isFalse();
    assertThat(SourceSettingsMapper.settings(list).endpoint().failover()).isFalse();
    assertThat(SourceSettingsMapper.settings(list).endpoint().url())
        .startsWith("jdbc:postgresql://pg-a:5433,pg-b:5434/");
    TrellaraSourceConfig failover = new TrellaraSourceConfig(with("slot.failover", "true"));
    assertThat(SourceSettingsMapper.settings(failover).endpoint().failover()).isTrue();
    assertThat(SourceSettingsMapper.settings(failover).database().endpoint().failover()).isTrue();
    assertThatThrownBy(() -> new TrellaraSourceConfig(with("database.hostname", "pg-a,pg-b:0")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'pg-b:0' has port '0'");
  }

  @Test
  void theBootstrapServersAreOptionalAndAdminSettingsArePassedWithoutTheirPrefix() {
    assertThat(new TrellaraSourceConfig(with("kafka.bootstrap.servers", null)).ownKafkaAccess())
        .isFalse();
    assertThat(new TrellaraSourceConfig(with("kafka.bootstrap.servers", " ")).ownKafkaAccess())
        .isFalse();
    assertThat(new TrellaraSourceConfig(valid()).ownKafkaAccess()).isTrue();
    TrellaraSourceConfig c = new TrellaraSourceConfig(with("kafka.admin.security.protocol", "SSL"));
    assertThat(c.adminConfig())
        .containsEntry("security.protocol", "SSL")
        .containsEntry("bootstrap.servers", "127.0.0.1:1");
    assertThatThrownBy(() -> new TrellaraSourceConfig(with("topic.replication.factor", "0")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("-1");
  }

  @Test
  void validateReportsRefusedFrameworkSettingsOnTheirKeysEvenWhenOtherFieldsFail() {
    Config config =
        new TrellaraSourceConnector()
            .validate(with("errors.tolerance", "all", "transforms", "f", "database.user", null));
    Map<String, ConfigValue> values = SourceSettingsMapper.byName(config);
    assertThat(values.get("errors.tolerance").errorMessages())
        .singleElement()
        .asString()
        .contains("is refused");
    assertThat(values.get("transforms").errorMessages())
        .singleElement()
        .asString()
        .contains("is refused");
    assertThat(values.get("database.user").errorMessages()).isNotEmpty();
  }

  @Test
  void connectorAndTaskRefuseToStartWithErrorsToleranceOrTransforms() {
    assertThatThrownBy(() -> new TrellaraSourceConnector().start(with("errors.tolerance", "all")))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("errors.tolerance=all is refused");
    assertThatThrownBy(() -> new TrellaraSourceTask().start(with("transforms", "x")))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("transforms=x is refused");
  }
}
