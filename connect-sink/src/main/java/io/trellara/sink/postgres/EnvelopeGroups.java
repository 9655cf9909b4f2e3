package io.trellara.sink.postgres;

import io.trellara.protocol.LogText;
import io.trellara.protocol.TransactionBoundaryKey;
import io.trellara.sink.port.ApplyException;
import io.trellara.sink.port.ApplyResult;
import io.trellara.sink.port.FlowKey;
import io.trellara.sink.port.SourceTransaction;
import io.trellara.sink.port.TopicPartitionKey;
import io.trellara.sink.postgres.apply.ChangeWriter;
import io.trellara.sink.postgres.checkpoint.AppliedRecords;
import io.trellara.sink.postgres.checkpoint.AppliedTransaction;
import io.trellara.sink.postgres.checkpoint.BodyDigests;
import io.trellara.sink.postgres.session.TargetSession;
import io.trellara.sink.postgres.settings.ApplyOptions;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Consecutive whole transactions into the target, grouped (up to {@link
 * ApplyOptions#groupMaxTransactions()} and {@link ApplyOptions#groupMaxChanges()}) into one target
 * transaction holding, in source order, every change and DDL event, then the dedup records and the
 * progress positions. A transaction already in the dedup table is skipped and reported as a
 * duplicate; a group the database refuses is applied again one transaction at a time.
 */
final class EnvelopeGroups {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(EnvelopeGroups.class);

  private final TransactionApplier applier;
  private final RetryingExecutor executor;

  EnvelopeGroups(TransactionApplier applier, RetryingExecutor executor) {
    this.applier = applier;
    this.executor = executor;
  }

  /**
   * Applies consecutive source transactions in order, grouped per {@link
   * ApplyOptions#groupMaxTransactions()}. Returns when every one is applied or found already
   * applied; throws {@link ApplyException} otherwise, in which case the groups before the failing
   * one are committed (see the result of earlier calls), and so are the transactions before the
   * failing one when its group was retried one transaction at a time.
   *
   * <p>A group the database refuses ({@link ApplyException.Reason#DATABASE_ERROR}) is applied again
   * one source transaction per target transaction, so grouping never fails what applying alone
   * would accept: on the source each transaction's deferred constraint checks ran at its own
   * commit, and an {@code ALTER TABLE} from schema evolution cannot run while an earlier
   * transaction of the group left deferred trigger events pending (SQLSTATE 55006).
   */
  ApplyResult apply(List<SourceTransaction> transactions) {
    List<TransactionBoundaryKey> applied = new ArrayList<>();
    List<TransactionBoundaryKey> duplicates = new ArrayList<>();
    Map<TopicPartitionKey, Long> positions = new LinkedHashMap<>();
    int commits = 0;
    int attempts = 0;
    for (List<SourceTransaction> g :
        groups(
            transactions,
            applier.options().groupMaxTransactions(),
            applier.options().groupMaxChanges())) {
      for (GroupOutcome o : applyGroupOrEach(g)) {
        applied.addAll(o.applied);
        duplicates.addAll(o.duplicates);
        positions.putAll(o.positions);
        commits++;
        attempts += o.attempts;
      }
    }
    applier.stagingVacuum().runIfDue(executor); // between transactions, when due
    return new ApplyResult(applied, duplicates, positions, commits, attempts);
  }

  private List<GroupOutcome> applyGroupOrEach(List<SourceTransaction> group) {
    try {
      return List.of(applyGroup(group));
    } catch (ApplyException e) {
      if (group.size() == 1 || e.reason() != ApplyException.Reason.DATABASE_ERROR) {
        throw e;
      }
      LOG.warn(
          "The target refused a group of {} source transactions (from {}; SQLSTATE {}): applying them one"
              + " target transaction each; the cause: {}",
          group.size(),
          LogText.escape(group.get(0).key().display()),
          e.sqlState(),
          e.getMessage());
      applier.metrics().groupsSplit.incrementAndGet();
      List<GroupOutcome> each = new ArrayList<>(group.size());
      for (SourceTransaction t : group) {
        each.add(applyGroup(List.of(t)));
      }
      return each;
    }
  }

  /**
   * Splits consecutive transactions into groups of at most {@code maxTransactions}; a group takes
   * no further transaction once it holds {@code maxChanges} changes and DDL events (a source
   * transaction is never split). A transaction with DDL events starts a group: on the source its
   * DDL ran after the earlier transactions had committed and fired their deferred triggers, and an
   * {@code ALTER TABLE} refuses to run while any are pending.
   */
  static List<List<SourceTransaction>> groups(
      List<SourceTransaction> transactions, int maxTransactions, int maxChanges) {
    List<List<SourceTransaction>> out = new ArrayList<>();
    int from = 0;
    long changes = 0;
    for (int i = 0; i < transactions.size(); i++) {
      boolean ddl = transactions.get(i).envelope().getDdlEventsCount() > 0;
      if (i > from && (i - from >= maxTransactions || changes >= maxChanges || ddl)) {
        out.add(transactions.subList(from, i));
        from = i;
        changes = 0;
      }
      changes += events(transactions.get(i));
    }
    if (from < transactions.size()) {
      out.add(transactions.subList(from, transactions.size()));
    }
    return out;
  }

  private static long events(SourceTransaction t) {
    return (long) t.envelope().getChangesCount() + t.envelope().getDdlEventsCount();
  }

  private record GroupOutcome(
      List<TransactionBoundaryKey> applied,
      List<TransactionBoundaryKey> duplicates,
      Map<TopicPartitionKey, Long> positions,
      int attempts) {}

  /**
   * A duplicate is skipped only when its body is the one applied under its identity ({@link
   * BodyDigests}): one the target recorded before, or an earlier one of this group.
   */
  private static void requireSameBodies(
      TargetSession s,
      List<SourceTransaction> group,
      List<FlowKey> keys,
      List<AppliedTransaction> records,
      Set<FlowKey> claimed,
      Set<FlowKey> commitUnknown)
      throws SQLException {
    Map<FlowKey, String> first = new HashMap<>();
    for (AppliedTransaction r : records) {
      first.put(new FlowKey(r.datasetId(), r.key()), r.bodyDigest());
    }
    Map<FlowKey, String> recorded = new LinkedHashMap<>();
    for (int i = 0; i < group.size(); i++) {
      FlowKey k = keys.get(i);
      String digest =
          AppliedTransaction.of(group.get(i).envelope(), group.get(i).fromChunks()).bodyDigest();
      BodyDigests.requireSame(k, first.get(k), digest);
      if (!claimed.contains(k) && !commitUnknown.contains(k)) {
        recorded.put(k, digest);
      }
    }
    BodyDigests.requireSameBodies(s, recorded);
  }

  private GroupOutcome applyGroup(List<SourceTransaction> group) {
    return executor.run(group.get(0).key().display(), (s, a) -> applyOnce(s, group, a));
  }

  private RetryingExecutor.Done<GroupOutcome> applyOnce(
      TargetSession s, List<SourceTransaction> group, RetryingExecutor.Attempt attempt)
      throws SQLException {
    Set<FlowKey> commitUnknown = attempt.commitUnknown();
    List<FlowKey> keys = new ArrayList<>(group.size());
    Map<TopicPartitionKey, Long> positions = new LinkedHashMap<>();
    for (SourceTransaction t : group) {
      keys.add(t.flowKey());
      if (t.topicPartition() != null) {
        positions.put(t.topicPartition(), t.nextOffset());
      }
      positions.putAll(t.lanePositions());
    }
    s.at(null, group.get(0).key().display());
    // one round trip claims the dedup records (the dedup check), records progress and sweeps
    // earlier
    // publications' chunks; what the target held before (each flow's newest applied position,
    // whether a
    // snapshot's flow fed it before) is read first, as the claims would show in it
    List<AppliedTransaction> records = new ArrayList<>(group.size());
    Map<FlowKey.Flow, FlowKey> sweeps = new LinkedHashMap<>();
    Set<FlowKey> seen = new HashSet<>();
    ChangeWriter writer = new ChangeWriter(s, applier.mapper(), applier.options());
    for (int i = 0; i < group.size(); i++) {
      SourceTransaction t = group.get(i);
      if (seen.add(keys.get(i))) {
        records.add(AppliedTransaction.of(t.envelope(), t.fromChunks()));
        attempt.order().readLastApplied(s, keys.get(i).flow());
        writer.beforeClaim(t.envelope());
      }
      if (t.fromChunks()) {
        // reassembled in memory, it may have chunks of an earlier, partial publication staged (a
        // source
        // that crashed mid-publication, then published it again whole): swept per flow up to the
        // newest
        sweeps.put(keys.get(i).flow(), keys.get(i));
      }
    }
    AppliedRecords.Claim claim =
        AppliedRecords.claim(
            s,
            applier.options().sinkName(),
            applier.owner(),
            records,
            positions,
            List.copyOf(sweeps.values()),
            applier.options().synchronousCommitOff());
    if (claim.swept() > 0) {
      // the usual case: the staged chunks these barriers were read back from (a look); chunks
      // of an earlier, partial publication go too
      LOG.debug(
          "Sink {} swept {} staged chunk(s) of transactions up to {}",
          applier.options().sinkName(),
          claim.swept(),
          LogText.escape(group.get(group.size() - 1).key().display()));
    }
    requireSameBodies(s, group, keys, records, claim.claimed(), commitUnknown);
    List<TransactionBoundaryKey> applied = new ArrayList<>();
    List<TransactionBoundaryKey> duplicates = new ArrayList<>();
    Set<FlowKey> toApply = new HashSet<>();
    seen.clear();
    for (int i = 0; i < group.size(); i++) {
      SourceTransaction t = group.get(i);
      FlowKey k = keys.get(i);
      if (!seen.add(k) || (!claim.claimed().contains(k) && !commitUnknown.contains(k))) {
        duplicates.add(k.transaction());
      } else if (!claim.claimed().contains(k)) {
        applied.add(k.transaction()); // our earlier attempt did commit it
        toApply.add(k);
      } else {
        attempt.order().admit(s, k, true);
        writer.write(t.envelope());
        applied.add(k.transaction());
        toApply.add(k);
      }
    }
    writer.flush();
    return new RetryingExecutor.Done<>(
        new GroupOutcome(applied, duplicates, positions, attempt.number()),
        toApply,
        () -> {
          applier.publish(writer, applied.size(), duplicates.size());
          applier.stagingVacuum().deleted(claim.swept());
          applier
              .metrics()
              .barriersApplied
              .addAndGet(
                  group.stream()
                      .filter(t -> t.fromChunks() && applied.contains(t.key()))
                      .map(SourceTransaction::key)
                      .distinct()
                      .count());
        });
  }
}
