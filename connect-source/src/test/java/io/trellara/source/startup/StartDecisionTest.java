package io.trellara.source.startup;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.Lsn;
import io.trellara.source.kafka.SourcePosition;
import io.trellara.source.kafka.TopicTail;
import io.trellara.source.pg.ServerIdentity;
import io.trellara.source.snapshot.SnapshotMode;
import io.trellara.source.snapshot.SnapshotPlan;
import io.trellara.source.startup.ResumeDecision.Verdict;
import io.trellara.source.startup.StartDecision.Source;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Where a task resumes and whether it snapshots, for Connect's offset (none, a running snapshot, a
 * position) against the topic's tail (none, the snapshot's marker, a streamed transaction later or
 * earlier, a snapshot without marker) and the slot (exists, missing, lost).
 */
class StartDecisionTest {
  static final ServerIdentity SERVER = new ServerIdentity("7390000000000000001", 1);
  static final ServerIdentity OTHER = new ServerIdentity("7280000000000000009", 1);
  static final long SNAPSHOT_AT = 0x16B3748L;
  static final long EARLY = 0x1600000L;
  static final long LATE = 0x1800000L;
  static final long LATER = 0x1900000L;
  static final String EXISTS = "reserved";
  static final String MISSING = null;
  static final String LOST = "lost";

  // ------------------------------------------------------------------ inputs

  static SourcePosition snapshotMarker(long consistentPoint) {
    return new SourcePosition(
        Lsn.format(consistentPoint), consistentPoint, "snapshot", SERVER.systemId(), 1L);
  }

  static SourcePosition streamed(long end, ServerIdentity server) {
    return new SourcePosition(
        Lsn.format(end - 0x48), end, "771", server.systemId(), server.timeline());
  }

  static SourcePosition streamed(long end) {
    return streamed(end, SERVER);
  }

  static SourceOffsets.Lookup connectNone() {
    return new SourceOffsets.Lookup(new StoredOffset.None(), new StoredOffset.None());
  }

  static SourceOffsets.Lookup connectRunning(long consistentPoint) {
    return new SourceOffsets.Lookup(
        new StoredOffset.Running(consistentPoint), new StoredOffset.None());
  }

  static SourceOffsets.Lookup connectAt(SourcePosition p) {
    return new SourceOffsets.Lookup(new StoredOffset.At(p), new StoredOffset.None());
  }

  static TopicTail tailNone(TopicTail.Status status) {
    return new TopicTail(status, null, "", 0, status != TopicTail.Status.INCOMPLETE, 0, "");
  }

  static TopicTail tailAt(SourcePosition closing) {
    return new TopicTail(TopicTail.Status.FOUND, closing, "t-0@41", 0, true, 1, "");
  }

  static TopicTail tailAt(SourcePosition closing, long openSnapshot, boolean complete) {
    return new TopicTail(TopicTail.Status.FOUND, closing, "t-0@41", openSnapshot, complete, 9, "");
  }

  static TopicTail tailOpenSnapshotOnly(long consistentPoint) {
    return new TopicTail(TopicTail.Status.NOT_FOUND, null, "", consistentPoint, true, 5, "");
  }

  static StartDecision decide(
      SourceOffsets.Lookup connect, TopicTail tail, String slot, SnapshotMode mode) {
    return StartDecision.decide(
        connect, tail, slot, mode, SERVER, false, "orders-source", "orders_slot");
  }

  static StartDecision initial(SourceOffsets.Lookup connect, TopicTail tail, String slot) {
    return decide(connect, tail, slot, SnapshotMode.INITIAL);
  }

  // ------------------------------------------------------------------ Connect has no offset

  @Test
  void noOffsetAndAnEmptyTopicSnapshotsInANewSlotSayingNeitherHoldsAPosition() {
    StartDecision d = initial(connectNone(), tailNone(TopicTail.Status.EMPTY), MISSING);
    assertThat(d.source()).isEqualTo(Source.NONE);
    assertThat(d.snapshot().plan()).isEqualTo(SnapshotPlan.SNAPSHOT_THEN_STREAM);
    assertThat(d.snapshot().dropSlot()).isFalse();
    assertThat(d.positionMessage())
        .contains("neither Connect nor the strict topic hold one", "none (looked up under both")
        .contains("holds no record");
    assertThat(d.snapshot().message())
        .contains("neither Connect's offsets nor the strict topic hold a position");
    assertThat(
            initial(connectNone(), tailNone(TopicTail.Status.EMPTY), EXISTS).snapshot().dropSlot())
        .isTrue();
  }

  @Test
  void noOffsetButTheSnapshotsMarkerOnTheTopicStreamsFromItsConsistentPointWithoutSnapshotting() {
    StartDecision d = initial(connectNone(), tailAt(snapshotMarker(SNAPSHOT_AT)), EXISTS);
    assertThat(d.source()).isEqualTo(Source.TOPIC);
    assertThat(d.snapshot().plan()).isEqualTo(SnapshotPlan.STREAM);
    assertThat(d.snapshot().dropSlot()).isFalse();
    assertThat(d.startLsn()).isEqualTo(SNAPSHOT_AT);
    assertThat(d.resume().verdict()).isEqualTo(Verdict.SAME_SERVER);
    assertThat(d.positionMessage())
        .contains("Connect holds no offset for this source", "had not flushed", "the snapshot at");
    assertThat(d.position().toMap()).containsEntry("transaction_id", "snapshot");
  }

  @Test
  void aFinishedSnapshotWhoseSlotIsGoneFollowsTheSnapshotMode() {
    StartDecision initial = initial(connectNone(), tailAt(snapshotMarker(SNAPSHOT_AT)), MISSING);
    assertThat(initial.snapshot().plan()).isEqualTo(SnapshotPlan.STREAM);
    assertThat(initial.snapshot().message()).contains("does not exist", "not captured");
    StartDecision whenNeeded =
        decide(
            connectNone(), tailAt(snapshotMarker(SNAPSHOT_AT)), MISSING, SnapshotMode.WHEN_NEEDED);
    assertThat(whenNeeded.snapshot().plan()).isEqualTo(SnapshotPlan.SNAPSHOT_THEN_STREAM);
    assertThat(whenNeeded.snapshot().message()).contains("no longer exists");
    StartDecision lost =
        decide(connectNone(), tailAt(snapshotMarker(SNAPSHOT_AT)), LOST, SnapshotMode.WHEN_NEEDED);
    assertThat(lost.snapshot().plan()).isEqualTo(SnapshotPlan.SNAPSHOT_THEN_STREAM);
    assertThat(lost.snapshot().dropSlot()).isTrue();
    assertThat(
            initial(connectNone(), tailAt(snapshotMarker(SNAPSHOT_AT)), LOST).snapshot().message())
        .contains("wal_status lost");
  }

  @Test
  void noOffsetAndChunksOfASnapshotWithoutMarkerSnapshotAgain() {
    StartDecision d = initial(connectNone(), tailOpenSnapshotOnly(SNAPSHOT_AT), EXISTS);
    assertThat(d.snapshot().plan()).isEqualTo(SnapshotPlan.SNAPSHOT_THEN_STREAM);
    assertThat(d.snapshot().dropSlot()).isTrue();
    assertThat(d.snapshot().message())
        .contains("did not finish", "chunks of the snapshot at consistent point 0/16B3748");
  }

  @Test
  void noOffsetAndATopicThatCannotBeReadSnapshotAsBeforeWithAWarning() {
    for (TopicTail.Status s :
        List.of(
            TopicTail.Status.UNREADABLE,
            TopicTail.Status.INCOMPLETE,
            TopicTail.Status.WITHOUT_OFFSET)) {
      StartDecision d = initial(connectNone(), tailNone(s), EXISTS);
      assertThat(d.positionWarns()).as(s.name()).isTrue();
      assertThat(d.snapshot().plan()).isEqualTo(SnapshotPlan.SNAPSHOT_THEN_STREAM);
    }
    assertThat(initial(connectNone(), tailNone(TopicTail.Status.EMPTY), EXISTS).positionWarns())
        .isFalse();
  }

  @Test
  void withoutBrokersTheTailIsNotReadAndConnectsOffsetAloneDecidesWithoutAWarning() {
    TopicTail notRead = TopicTail.notRead("kafka.bootstrap.servers is not set");
    StartDecision none = decide(connectNone(), notRead, EXISTS, SnapshotMode.NEVER);
    assertThat(none.positionWarns()).isFalse();
    assertThat(none.source()).isEqualTo(Source.NONE);
    assertThat(none.snapshot().plan()).isEqualTo(SnapshotPlan.STREAM);
    assertThat(none.positionMessage()).contains("not read", "kafka.bootstrap.servers is not set");
    StartDecision at = decide(connectAt(streamed(LATE)), notRead, EXISTS, SnapshotMode.INITIAL);
    assertThat(at.source()).isEqualTo(Source.CONNECT);
    assertThat(at.startLsn()).isEqualTo(LATE);
    assertThat(at.snapshot().plan()).isEqualTo(SnapshotPlan.STREAM);
  }

  // ------------------------------------------------------------------ Connect says running

  @Test
  void aRunningSnapshotWhoseMarkerIsOnTheTopicFinishedAndIsNotTakenAgain() {
    StartDecision d =
        initial(connectRunning(SNAPSHOT_AT), tailAt(snapshotMarker(SNAPSHOT_AT)), EXISTS);
    assertThat(d.source()).isEqualTo(Source.TOPIC);
    assertThat(d.snapshot().plan()).isEqualTo(SnapshotPlan.STREAM);
    assertThat(d.startLsn()).isEqualTo(SNAPSHOT_AT);
    assertThat(d.positionMessage()).contains("snapshot was running", "the snapshot finished");
    StartDecision streamedAfter =
        initial(connectRunning(SNAPSHOT_AT), tailAt(streamed(LATE)), EXISTS);
    assertThat(streamedAfter.snapshot().plan()).isEqualTo(SnapshotPlan.STREAM);
    assertThat(streamedAfter.startLsn()).isEqualTo(LATE);
  }

  @Test
  void aRunningSnapshotWithoutItsMarkerOnTheTopicIsTakenAgain() {
    for (TopicTail tail :
        List.of(
            tailNone(TopicTail.Status.EMPTY),
            tailNone(TopicTail.Status.UNREADABLE),
            tailAt(streamed(EARLY)))) {
      StartDecision d = initial(connectRunning(SNAPSHOT_AT), tail, EXISTS);
      assertThat(d.source()).isEqualTo(Source.CONNECT);
      assertThat(d.snapshot().plan()).isEqualTo(SnapshotPlan.SNAPSHOT_THEN_STREAM);
      assertThat(d.snapshot().dropSlot()).isTrue();
      assertThat(d.snapshot().message()).contains("did not finish");
    }
  }

  @Test
  void aRunningOffsetOfAnEarlierVersionTrustsOnlyACompleteTailWithoutSnapshotChunks() {
    assertThat(
            initial(connectRunning(0), tailAt(snapshotMarker(SNAPSHOT_AT)), EXISTS)
                .snapshot()
                .plan())
        .isEqualTo(SnapshotPlan.STREAM);
    assertThat(
            initial(connectRunning(0), tailAt(snapshotMarker(SNAPSHOT_AT), 0, false), EXISTS)
                .snapshot()
                .plan())
        .as("the lanes were not all read")
        .isEqualTo(SnapshotPlan.SNAPSHOT_THEN_STREAM);
    assertThat(
            initial(connectRunning(0), tailAt(streamed(EARLY), SNAPSHOT_AT, true), EXISTS)
                .snapshot()
                .plan())
        .as("a snapshot's chunks follow the newest closing record")
        .isEqualTo(SnapshotPlan.SNAPSHOT_THEN_STREAM);
  }

  // ------------------------------------------------------------------ Connect has a position

  @Test
  void aTopicPositionLaterThanConnectsWinsBecauseConnectHadNotFlushed() {
    StartDecision d = initial(connectAt(streamed(LATE)), tailAt(streamed(LATER)), EXISTS);
    assertThat(d.source()).isEqualTo(Source.TOPIC);
    assertThat(d.startLsn()).isEqualTo(LATER);
    assertThat(d.snapshot().plan()).isEqualTo(SnapshotPlan.STREAM);
    assertThat(d.positionMessage()).contains("the topic's is later", "had not flushed");
  }

  @Test
  void aConnectPositionLaterThanTheTopicsWinsAndSaysTheTopicLostRecords() {
    StartDecision d = initial(connectAt(streamed(LATER)), tailAt(streamed(LATE)), EXISTS);
    assertThat(d.source()).isEqualTo(Source.CONNECT);
    assertThat(d.startLsn()).isEqualTo(LATER);
    assertThat(d.positionMessage()).contains("the topic lost records");
    StartDecision same = initial(connectAt(streamed(LATE)), tailAt(streamed(LATE)), EXISTS);
    assertThat(same.source()).isEqualTo(Source.CONNECT);
    assertThat(same.positionMessage()).contains("they agree");
  }

  @Test
  void aConnectPositionAndATopicWithoutOneResumeFromConnect() {
    for (TopicTail.Status s : TopicTail.Status.values()) {
      if (s == TopicTail.Status.FOUND) {
        continue;
      }
      StartDecision d = initial(connectAt(streamed(LATE)), tailNone(s), EXISTS);
      assertThat(d.source()).as(s.name()).isEqualTo(Source.CONNECT);
      assertThat(d.startLsn()).isEqualTo(LATE);
      assertThat(d.snapshot().plan()).isEqualTo(SnapshotPlan.STREAM);
      assertThat(d.positionWarns()).isFalse();
    }
  }

  @Test
  void aSnapshotWithoutMarkerAfterThePositionIsTakenAgainAndOneBeforeItIsIgnored() {
    StartDecision newer =
        initial(connectAt(streamed(LATE)), tailAt(streamed(LATE), LATER, true), EXISTS);
    assertThat(newer.snapshot().plan()).isEqualTo(SnapshotPlan.SNAPSHOT_THEN_STREAM);
    assertThat(newer.snapshot().dropSlot()).isTrue();
    StartDecision older =
        initial(connectAt(streamed(LATER)), tailAt(streamed(LATE), LATE + 8, true), EXISTS);
    assertThat(older.snapshot().plan()).isEqualTo(SnapshotPlan.STREAM);
    assertThat(older.startLsn()).isEqualTo(LATER);
  }

  @Test
  void positionsOfTwoServersPreferTheConnectedServersAndOtherwiseLetTheServerCheckDecide() {
    StartDecision topicHere =
        initial(connectAt(streamed(LATER, OTHER)), tailAt(streamed(EARLY)), EXISTS);
    assertThat(topicHere.source()).isEqualTo(Source.TOPIC);
    assertThat(topicHere.resume().verdict()).isEqualTo(Verdict.SAME_SERVER);
    StartDecision tailOther = initial(connectNone(), tailAt(streamed(LATE, OTHER)), EXISTS);
    assertThat(tailOther.source()).isEqualTo(Source.TOPIC);
    assertThat(tailOther.resume().verdict()).isEqualTo(Verdict.REFUSE);
    assertThat(tailOther.resume().message()).contains("topic.strict");
    StartDecision accepted =
        StartDecision.decide(
            connectNone(),
            tailAt(streamed(LATE, OTHER)),
            EXISTS,
            SnapshotMode.INITIAL,
            SERVER,
            true,
            "orders-source",
            "orders_slot");
    assertThat(accepted.resume().verdict()).isEqualTo(Verdict.NEW_HISTORY_ACCEPTED);
    assertThat(accepted.startLsn()).isZero();
    assertThat(accepted.snapshot().plan())
        .as("a position of another history still says a snapshot was taken")
        .isEqualTo(SnapshotPlan.STREAM);
  }

  @Test
  void neverAndInitialOnlyDecideOnTheChosenPositionToo() {
    assertThat(
            decide(connectNone(), tailOpenSnapshotOnly(SNAPSHOT_AT), EXISTS, SnapshotMode.NEVER)
                .snapshot()
                .plan())
        .isEqualTo(SnapshotPlan.STREAM);
    assertThat(
            decide(
                    connectNone(),
                    tailAt(snapshotMarker(SNAPSHOT_AT)),
                    MISSING,
                    SnapshotMode.INITIAL_ONLY)
                .snapshot()
                .plan())
        .isEqualTo(SnapshotPlan.NOTHING);
    assertThat(
            decide(
                    connectNone(),
                    tailNone(TopicTail.Status.EMPTY),
                    MISSING,
                    SnapshotMode.INITIAL_ONLY)
                .snapshot()
                .plan())
        .isEqualTo(SnapshotPlan.SNAPSHOT_ONLY);
  }

  // ------------------------------------------------------------------ every combination

  /**
   * Over every combination of Connect's offset, the tail and the slot, in every mode: a stream
   * never starts before a position the topic shows of this server (nothing on the topic is
   * published again), never at a running snapshot, a snapshot happens only without a position or
   * with an unfinished snapshot, and what records carry before the first closing record is never
   * null.
   */
  @Test
  void inEveryCombinationNothingTheTopicHoldsIsPublishedAgain() {
    List<SourceOffsets.Lookup> connects =
        List.of(
            connectNone(),
            connectRunning(SNAPSHOT_AT),
            connectRunning(0),
            connectAt(streamed(EARLY)),
            connectAt(streamed(LATE)),
            connectAt(streamed(LATER)),
            new SourceOffsets.Lookup(
                new StoredOffset.At(streamed(EARLY)), new StoredOffset.At(streamed(LATER))));
    List<TopicTail> tails = new ArrayList<>();
    for (TopicTail.Status s : TopicTail.Status.values()) {
      if (s != TopicTail.Status.FOUND) {
        tails.add(tailNone(s));
      }
    }
    tails.add(tailAt(snapshotMarker(SNAPSHOT_AT)));
    tails.add(tailAt(streamed(EARLY)));
    tails.add(tailAt(streamed(LATE)));
    tails.add(tailAt(streamed(LATER)));
    tails.add(tailAt(streamed(EARLY), SNAPSHOT_AT, true));
    tails.add(tailAt(snapshotMarker(SNAPSHOT_AT), 0, false));
    tails.add(tailOpenSnapshotOnly(SNAPSHOT_AT));
    int combinations = 0;
    for (SourceOffsets.Lookup connect : connects) {
      for (TopicTail tail : tails) {
        for (String slot : new String[] {EXISTS, MISSING, LOST}) {
          for (SnapshotMode mode : SnapshotMode.values()) {
            StartDecision d = decide(connect, tail, slot, mode);
            String what = connect + " / " + tail + " / " + slot + " / " + mode;
            combinations++;
            assertThat(d.position().toMap()).as(what).isNotNull();
            assertThat(d.positionMessage()).as(what).startsWith("Start position: ");
            SnapshotPlan plan = d.snapshot().plan();
            // a running snapshot's slot was created after everything on the topic: the slot's
            // position (0) is later than any of it
            boolean fromSlot = d.position() instanceof StoredOffset.Running;
            if (plan.stream() && !plan.read() && !fromSlot) {
              if (tail.closing() != null) {
                assertThat(d.startLsn())
                    .as("never before what the topic holds: " + what)
                    .isGreaterThanOrEqualTo(tail.closing().endLsn());
              }
              if (connect.offset() instanceof StoredOffset.At at) {
                assertThat(d.startLsn())
                    .as("never before Connect's position: " + what)
                    .isGreaterThanOrEqualTo(at.position().endLsn());
              }
            }
            if (plan.read()) {
              assertThat(mode).as(what).isNotEqualTo(SnapshotMode.NEVER);
              boolean unfinished = d.snapshot().message().contains("did not finish");
              if (mode != SnapshotMode.WHEN_NEEDED) {
                assertThat(!(d.position() instanceof StoredOffset.At) || unfinished)
                    .as("a snapshot only without a position or after an unfinished one: " + what)
                    .isTrue();
              }
            }
            if (d.snapshot().dropSlot()) {
              assertThat(slot).as(what).isNotNull();
            }
          }
        }
      }
    }
    assertThat(combinations).isEqualTo(7 * 13 * 3 * 4);
  }
}
