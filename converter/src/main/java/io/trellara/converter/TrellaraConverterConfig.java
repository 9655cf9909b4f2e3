package io.trellara.converter;

import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;

/** Settings of {@link TrellaraConverter}. */
public final class TrellaraConverterConfig extends AbstractConfig {
  public static final String RENDER = "render";
  public static final String RENDER_PROTOBUF = "protobuf";
  public static final String RENDER_JSON = "json";
  private static final String RENDER_DOC =
      "What the converter hands over. 'protobuf' (default): Kafka carries"
          + " exactly the checksummed protobuf bytes; inbound, tasks receive them unread (with the kind and"
          + " trellara-auth headers), to authenticate before the one codec verifies, parses and validates"
          + " them. 'json': for inspection only; inbound, tasks receive the verified message rendered as"
          + " proto3 JSON text; outbound, the validated message is written as JSON (not readable by the"
          + " Trellara sink).";

  public static final ConfigDef CONFIG_DEF =
      new ConfigDef()
          .define(
              RENDER,
              ConfigDef.Type.STRING,
              RENDER_PROTOBUF,
              ConfigDef.ValidString.in(RENDER_PROTOBUF, RENDER_JSON),
              ConfigDef.Importance.MEDIUM,
              RENDER_DOC,
              "Converter",
              1,
              ConfigDef.Width.SHORT,
              "Rendering");

  public TrellaraConverterConfig(Map<?, ?> props) {
    super(CONFIG_DEF, props);
  }

  public boolean json() {
    return RENDER_JSON.equals(getString(RENDER));
  }
}
