package io.trellara.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.sink.connect.TrellaraSinkConfig;
import io.trellara.source.connect.TrellaraSourceConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

/** docs/configuration.md is generated from the ConfigDefs and must not go stale. */
class ConfigurationDocTest {

  private static Path doc() {
    return Path.of(System.getProperty("trellara.repo.root", "..")).resolve("docs/configuration.md");
  }

  @Test
  void configurationReferenceIsUpToDateWithTheConfigDefs() throws IOException {
    String expected = ConfigurationDoc.render();
    Path doc = doc();
    if (Boolean.getBoolean(ConfigurationDoc.REGENERATE_PROPERTY)) {
      Files.writeString(doc, expected, StandardCharsets.UTF_8);
    }
    String actual = Files.exists(doc) ? Files.readString(doc, StandardCharsets.UTF_8) : "";
    assertThat(actual.equals(expected))
        .as(
            "docs/configuration.md is stale (or missing): a ConfigDef changed. Regenerate it with%n  %s%n"
                + "and commit the result.",
            ConfigurationDoc.REGENERATE_COMMAND)
        .isTrue();
  }

  @Test
  void everyKeyOfEveryConfigDefIsDocumented() {
    String rendered = ConfigurationDoc.render();
    for (ConfigurationDoc.Component c : ConfigurationDoc.components()) {
      for (String key : c.def().names()) {
        assertThat(rendered).as("%s: %s", c.title(), key).contains("#### `" + key + "`");
      }
    }
  }

  @Test
  void passwordDefaultsAreNeverPrinted() {
    ConfigDef def =
        new ConfigDef()
            .define(
                "secret",
                ConfigDef.Type.PASSWORD,
                "hunter2",
                ConfigDef.Importance.HIGH,
                "a secret");
    assertThat(ConfigurationDoc.defaultValue(def.configKeys().get("secret")))
        .isEqualTo("[hidden]")
        .doesNotContain("hunter2");
    assertThat(
            ConfigurationDoc.defaultValue(
                TrellaraSourceConfig.CONFIG_DEF.configKeys().get(TrellaraSourceConfig.PASSWORD)))
        .isEqualTo("\"\" (empty)");
    assertThat(
            ConfigurationDoc.defaultValue(
                TrellaraSinkConfig.CONFIG_DEF.configKeys().get(TrellaraSinkConfig.PASSWORD)))
        .isEqualTo("\"\" (empty)");
  }

  @Test
  void renderingDoesNotDependOnTheMachine() {
    String rendered = ConfigurationDoc.render();
    assertThat(rendered)
        .doesNotContain(System.getProperty("java.io.tmpdir") + "`")
        .doesNotContain(System.getProperty("user.home"));
    assertThat(rendered).isEqualTo(ConfigurationDoc.render());
  }
}
