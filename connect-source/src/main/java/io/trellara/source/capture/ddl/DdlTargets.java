package io.trellara.source.capture.ddl;

import java.util.ArrayList;
import java.util.List;

/**
 * What a {@code trellara.ddl} message says about the objects its statement touched: the owning
 * relations ({@code relations}) and whether they are all temporary ({@code temporary}). Filled by
 * {@link DdlMessageParser}; reused per message.
 */
public final class DdlTargets {

  public final List<OwningRelation> relations = new ArrayList<>();
  public boolean temporary;

  /** False for a message of a trigger older than the relations field (it names no relation). */
  public boolean described;

  DdlTargets clear() {
    relations.clear();
    temporary = false;
    described = false;
    return this;
  }
}
