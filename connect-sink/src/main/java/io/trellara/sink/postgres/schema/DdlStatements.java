package io.trellara.sink.postgres.schema;

import io.trellara.protocol.v1.DdlEvent;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.postgres.ddl.ReplayableStatement;
import io.trellara.sink.postgres.ddl.SqlLexer;
import io.trellara.sink.postgres.ddl.SqlSyntaxException;
import io.trellara.sink.postgres.ddl.Token;
import io.trellara.sink.postgres.ddl.TokenType;
import io.trellara.sink.postgres.names.QualifiedName;
import java.util.ArrayList;
import java.util.List;

/**
 * What the sink reads from a DDL event's statement text, with PostgreSQL's own lexical rules
 * ({@link SqlLexer}): whether it renames something, and, only under replay, whether it may run.
 */
final class DdlStatements {
  private DdlStatements() {}

  /**
   * True when the statement contains the keyword RENAME outside strings, quoted names and comments,
   * or cannot be read at all (the source's server parsed it, so unreadable text is not what the
   * source sent; a possible rename stops apply rather than being guessed at).
   */
  static boolean isRename(String sql) {
    try {
      SqlLexer lexer = new SqlLexer(sql);
      for (TokenType t = lexer.next(); t != TokenType.EOF; t = lexer.next()) {
        if (t == TokenType.IDENTIFIER && lexer.isKeyword("rename")) {
          return true;
        }
      }
      return false;
    } catch (SqlSyntaxException e) {
      return true;
    }
  }

  /**
   * The relation a DDL event belongs to: the source's {@code relation}, else its object identity,
   * else null.
   */
  static QualifiedName relationOf(DdlEvent d) {
    if (d.hasRelation() && !d.getRelation().getTable().isEmpty()) {
      return new QualifiedName(d.getRelation().getSchema(), d.getRelation().getTable());
    }
    try {
      return QualifiedName.parse(d.getObjectIdentity());
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * The statement of {@code d} if it may be replayed: one transactional statement of the accepted
   * commands, every object it touches allowlisted and not mapped elsewhere (its text cannot be
   * rewritten); otherwise an {@link ApplyException} naming the refusal.
   *
   * @param defaultSchema the schema its unqualified names resolve to on the target
   */
  static ReplayableStatement checkReplay(
      DdlEvent d, String defaultSchema, RelationMapper mapper, String key) {
    ReplayableStatement s =
        ReplayableStatement.check(d.getStatement(), defaultSchema, mapper::replayAllowed);
    if (!s.accepted()) {
      throw new ApplyException(
          ApplyException.Reason.DDL_REFUSED,
          d.getObjectIdentity(),
          key,
          "DDL replay refused (" + s.refusal() + "): " + s.message());
    }
    return s;
  }

  /**
   * The schemas of a search_path setting, in order, read by the same lexer ({@code "$user"}
   * included as it is; an unreadable setting names none).
   */
  static List<String> searchPath(String setting) {
    List<String> out = new ArrayList<>();
    try {
      for (Token t : SqlLexer.tokenize(setting)) {
        if (t.type() == TokenType.IDENTIFIER || t.type() == TokenType.QUOTED_IDENTIFIER) {
          out.add(t.value());
        }
      }
    } catch (SqlSyntaxException e) {
      return List.of();
    }
    return out;
  }
}
