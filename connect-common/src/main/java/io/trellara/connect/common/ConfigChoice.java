package io.trellara.connect.common;

/**
 * One allowed value of a setting, spelled once: an enum constant and the name configuration uses
 * for it. {@link ConfigChoices} derives the setting's validator, recommender and documented values
 * from the enum, so they cannot disagree.
 */
public interface ConfigChoice {
  /** The value as configuration spells it, e.g. {@code when_needed}. */
  String configName();
}
