package io.trellara.connect.common.auth;

import io.trellara.connect.common.ConfigChoices;
import io.trellara.connect.common.ConfigRecommenders;
import java.util.List;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The record authentication settings, defined once for both connectors: {@value #MODE}, {@value
 * #KEYS} and (the source's) {@value #KEY_ID}. Read them with {@link AuthSettings}.
 */
public final class AuthDefinitions {
  public static final String GROUP = "Record authentication";
  public static final String MODE = "record.authentication";
  public static final String KEYS = "record.authentication.keys";
  public static final String KEY_ID = "record.authentication.key.id";

  private AuthDefinitions() {}

  /** Defines the settings; the source passes {@code signing} to add {@value #KEY_ID}. */
  public static void define(ConfigDef d, boolean signing) {
    List<String> modes = ConfigChoices.names(RecordAuthentication.class);
    d.define(
        MODE,
        Type.STRING,
        "",
        ConfigDef.LambdaValidator.with(
            (name, value) -> {
              String v = value == null ? "" : value.toString();
              if (!v.isEmpty() && !modes.contains(v)) {
                throw new org.apache.kafka.common.config.ConfigException(
                    name, value, "expected one of " + modes + " or empty (the default)");
              }
            },
            () -> "[" + String.join(", ", modes) + "], or empty"),
        Importance.HIGH,
        "Record authentication: "
            + ConfigChoices.listed(RecordAuthentication.class)
            + ". Empty (the default) means required when "
            + KEYS
            + " is set, else off. "
            + (signing
                ? "The source signs every record (HMAC-SHA-256, header trellara-auth) with "
                    + KEY_ID
                    + " unless off."
                : "required refuses a record without a valid trellara-auth header; optional accepts"
                    + " an unsigned record but refuses a bad tag or an unknown key id; off checks"
                    + " nothing.")
            + " See docs/security.md, Record authentication.",
        GROUP,
        1,
        Width.SHORT,
        "Record authentication",
        ConfigRecommenders.fixed(modes));
    d.define(
        KEYS,
        Type.PASSWORD,
        "",
        Importance.HIGH,
        "The keys, as a comma-separated list of id=secret (id: 1 to 64 letters, digits, '.', '_',"
            + " '-'; secret: at least 16 bytes of UTF-8 text, no comma). "
            + (signing
                ? "The source signs with the one "
                    + KEY_ID
                    + " names; list the next key here"
                    + " before switching to it."
                : "The sink accepts a record signed with any of them: add the new key here before the"
                    + " source switches to it, remove the old one after.")
            + " Take the value from a config provider (${file:...}, ${env:...}), not the plain"
            + " configuration.",
        GROUP,
        2,
        Width.LONG,
        "Authentication keys");
    if (signing) {
      d.define(
          KEY_ID,
          Type.STRING,
          "",
          Importance.HIGH,
          "The id of the key in "
              + KEYS
              + " the source signs with (required when "
              + KEYS
              + " lists more than one).",
          GROUP,
          3,
          Width.SHORT,
          "Signing key id");
    }
  }
}
