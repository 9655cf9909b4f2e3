package io.trellara.source.capture.ddl;

import java.util.ArrayList;
import java.util.List;

/**
 * What a {@code trellara.ddl} message says about the objects its statement touched: the owning
 * relations ({@code relations}), whether they are all temporary ({@code temporary}) and who ran it
 * ({@code role}, {@code session_user}). Filled by {@link DdlMessageParser}; reused per message.
 */
public final class DdlTargets {

  public final List<OwningRelation> relations = new ArrayList<>();
  public boolean temporary;

  /** False for a message of a trigger older than the relations field (it names no relation). */
  public boolean described;

  /**
   * The role the DDL ran as (the SET ROLE role, else the login role) and the login role, as the
   * trigger recorded them; null for a trigger older than version 3.
   */
  public String role;

  public String sessionUser;

  /**
   * Each owning table's columns after the statement (trigger version 4; empty for older triggers
   * and statements that left no ordinary table).
   */
  public final List<RelationShape> shapes = new ArrayList<>();

  DdlTargets clear() {
    relations.clear();
    temporary = false;
    described = false;
    role = null;
    sessionUser = null;
    shapes.clear();
    return this;
  }
}
