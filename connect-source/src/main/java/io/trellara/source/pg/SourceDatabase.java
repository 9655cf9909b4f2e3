package io.trellara.source.pg;

import io.trellara.source.routing.OwnershipKeys;
import java.util.List;
import java.util.Set;

/**
 * The source database as the PostgreSQL administration sees it: where it is, the slot and the
 * publication capture reads, the tables an auto-created publication covers, the DDL capture, and
 * (partitioned mode) the ownership keys the preflight checks against the tables' keys.
 *
 * @param ownershipKeys the ownership keys in partitioned mode; null otherwise
 * @param ddlMessageRoles the roles of {@code ddl.message.roles}; empty or null: the tables' owners
 */
public record SourceDatabase(
    PgEndpoint endpoint,
    String slotName,
    String publicationName,
    boolean autocreatePublication,
    List<String> tables,
    boolean ddlCapture,
    boolean ddlInstall,
    OwnershipKeys ownershipKeys,
    Set<String> ddlMessageRoles) {

  public boolean partitioned() {
    return ownershipKeys != null;
  }
}
