package io.trellara.connect.common.auth;

import io.trellara.connect.common.ConfigChoices;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The record authentication settings as read: the mode (the default resolved), the keys by id and
 * the source's signing key id. Secrets are never printed.
 *
 * @param keys secret text by key id, in the order listed
 * @param signingKeyId the key the source signs with (empty on the sink)
 */
public record AuthSettings(
    RecordAuthentication mode, Map<String, String> keys, String signingKeyId) {

  /** Only the authentication settings of {@code props} (what the rules check before the rest). */
  public static AuthSettings of(java.util.Map<?, ?> props, boolean signing) {
    org.apache.kafka.common.config.ConfigDef d = new org.apache.kafka.common.config.ConfigDef();
    AuthDefinitions.define(d, signing);
    java.util.Map<Object, Object> only = new java.util.HashMap<>();
    for (String k : d.names()) {
      if (props.containsKey(k)) {
        only.put(k, props.get(k));
      }
    }
    return of(new AbstractConfig(d, only, false), signing);
  }

  public static AuthSettings of(AbstractConfig c, boolean signing) {
    Password p = c.getPassword(AuthDefinitions.KEYS);
    Map<String, String> keys = parseKeys(p == null ? "" : p.value());
    String m = c.getString(AuthDefinitions.MODE);
    RecordAuthentication mode =
        m == null || m.isBlank()
            ? (keys.isEmpty() ? RecordAuthentication.OFF : RecordAuthentication.REQUIRED)
            : ConfigChoices.of(RecordAuthentication.class, m.trim());
    String keyId = "";
    if (mode != RecordAuthentication.OFF) {
      if (keys.isEmpty()) {
        throw new ConfigException(
            AuthDefinitions.MODE
                + "="
                + mode.configName()
                + " needs keys: set "
                + AuthDefinitions.KEYS
                + " (id=secret, from a config provider), or set "
                + AuthDefinitions.MODE
                + "=off");
      }
      if (signing) {
        keyId = signingKeyId(c.getString(AuthDefinitions.KEY_ID), keys);
      }
    }
    return new AuthSettings(mode, Collections.unmodifiableMap(keys), keyId);
  }

  private static String signingKeyId(String configured, Map<String, String> keys) {
    String id = configured == null ? "" : configured.trim();
    if (id.isEmpty()) {
      if (keys.size() != 1) {
        throw new ConfigException(
            AuthDefinitions.KEY_ID,
            "",
            AuthDefinitions.KEYS + " lists " + keys.keySet() + ": name the one to sign with");
      }
      return keys.keySet().iterator().next();
    }
    if (!keys.containsKey(id)) {
      throw new ConfigException(
          AuthDefinitions.KEY_ID,
          id,
          "is not one of the ids in " + AuthDefinitions.KEYS + " " + keys.keySet());
    }
    return id;
  }

  /** {@code id=secret,id=secret}: ids once each, no empty secret. */
  static Map<String, String> parseKeys(String text) {
    Map<String, String> out = new LinkedHashMap<>();
    if (text == null || text.isBlank()) {
      return out;
    }
    for (String entry : text.split(",")) {
      String e = entry.trim();
      if (e.isEmpty()) {
        continue;
      }
      int eq = e.indexOf('=');
      if (eq <= 0 || eq == e.length() - 1) {
        // never echo the entry: it may hold a secret
        throw new ConfigException(
            AuthDefinitions.KEYS + ": an entry is not id=secret (entries are comma-separated)");
      }
      String id = e.substring(0, eq).trim();
      if (out.put(id, e.substring(eq + 1)) != null) {
        throw new ConfigException(AuthDefinitions.KEYS + ": key id '" + id + "' is listed twice");
      }
    }
    return out;
  }

  public boolean on() {
    return mode != RecordAuthentication.OFF;
  }

  @Override
  public String toString() {
    return "record authentication "
        + mode.configName()
        + " keys "
        + keys.keySet()
        + (signingKeyId.isEmpty() ? "" : " signing with " + signingKeyId);
  }
}
