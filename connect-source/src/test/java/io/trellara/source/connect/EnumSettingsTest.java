package io.trellara.source.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.connect.common.ConfigChoice;
import io.trellara.connect.common.ConfigChoices;
import io.trellara.connect.common.SslMode;
import io.trellara.source.routing.KeyChangePolicy;
import io.trellara.source.routing.NullKeyPolicy;
import io.trellara.source.snapshot.SnapshotMode;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

/**
 * Every enum-valued source setting has one spelling: its validator (the generated docs' valid
 * values), its recommender, its default and its doc come from the enum.
 */
class EnumSettingsTest {
  record Setting<E extends Enum<E> & ConfigChoice>(
      String name, Class<E> type, List<String> offered) {}

  static <E extends Enum<E> & ConfigChoice> Setting<E> of(String name, Class<E> type) {
    return new Setting<>(name, type, ConfigChoices.names(type));
  }

  static final List<Setting<?>> SETTINGS =
      List.of(
          of(TrellaraSourceConfig.SSLMODE, SslMode.class),
          of(TrellaraSourceConfig.PUBLICATION_AUTOCREATE, PublicationAutocreate.class),
          of(TrellaraSourceConfig.SNAPSHOT_MODE, SnapshotMode.class),
          of(TrellaraSourceConfig.DATASET_MODE, DatasetMode.class),
          of(TrellaraSourceConfig.NULL_KEY_POLICY, NullKeyPolicy.class),
          new Setting<>(
              TrellaraSourceConfig.KEY_CHANGE_POLICY,
              KeyChangePolicy.class,
              ConfigChoices.names(KeyChangePolicy.class, KeyChangePolicy::planned)));

  @Test
  void validatorDefaultRecommenderAndDocOfEachEnumSettingComeFromItsEnum() {
    for (Setting<?> s : SETTINGS) {
      ConfigDef.ConfigKey key = TrellaraSourceConfig.CONFIG_DEF.configKeys().get(s.name());
      List<String> names = ConfigChoices.names(s.type());
      assertThat(key.validator.toString()).as(s.name()).isEqualTo(names.toString());
      assertThat(names).as(s.name() + " default").contains((String) key.defaultValue);
      assertThat(key.recommender.validValues(s.name(), Map.of()))
          .as(s.name() + " recommender")
          .containsExactlyElementsOf(s.offered());
      for (String n : names) {
        assertThat(key.documentation).as(s.name() + " doc names " + n).contains(n);
      }
    }
  }

  @Test
  void aValueOutsideTheEnumIsRefusedNamingTheValidOnes() {
    var values = new TrellaraSourceConnector().config().validate(Map.of("snapshot.mode", "always"));
    var snapshot =
        values.stream().filter(v -> v.name().equals("snapshot.mode")).findFirst().orElseThrow();
    assertThat(snapshot.errorMessages())
        .anySatisfy(m -> assertThat(m).contains("initial", "never", "initial_only", "when_needed"));
  }

  @Test
  void theOldConstantsSpellTheEnums() {
    assertThat(TrellaraSourceConfig.MODE_STRICT).isEqualTo("strict_transaction_order");
    assertThat(TrellaraSourceConfig.MODE_PARTITIONED).isEqualTo("partitioned_scale_mode");
    assertThat(TrellaraSourceConfig.AUTOCREATE_FILTERED).isEqualTo("filtered");
    assertThat(TrellaraSourceConfig.SSLMODES)
        .containsExactly("disable", "allow", "prefer", "require", "verify-ca", "verify-full");
  }
}
