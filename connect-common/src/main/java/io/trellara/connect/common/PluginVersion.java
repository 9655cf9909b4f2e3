package io.trellara.connect.common;

/**
 * The version every Trellara plugin reports to Connect (one constant for the source, the sink and
 * their tasks).
 */
public final class PluginVersion {
  public static final String VERSION = "0.1.0";

  private PluginVersion() {}
}
