package io.trellara.source.signal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.source.capture.SyntheticStream;
import io.trellara.source.pg.PublicationReconciler;
import io.trellara.source.pgoutput.PgOutputMessage;
import io.trellara.source.pgoutput.PgOutputMessage.LogicalMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The stream's side of tables added to capture: the changes of a table whose snapshot waits for its
 * consistent point P are dropped from transactions committing before P (they are in the snapshot,
 * and published ahead of it would show the table partly filled), kept from those at or after P and
 * from every other table; a streamed transaction that lost such changes and commits at or after P
 * fails capture before the snapshot is published.
 */
class AddedTablesTest {
  static final long OLD = 16_400;
  static final long NEW = 16_401;
  static final long P = 0x5000;

  /** A fake of the online snapshots: one waiting at P for public.fresh, or none. */
  private long point = P;

  private final AddedTables.Pending pending =
      new AddedTables.Pending() {
        @Override
        public long pendingPoint() {
          return point;
        }

        @Override
        public boolean pendingAdded(String display) {
          return point >= 0 && Set.of("public.fresh").contains(display);
        }
      };

  private final AddedTables added = new AddedTables(true);

  private List<PgOutputMessage> feed(PgOutputMessage... messages) {
    List<PgOutputMessage> out = new ArrayList<>();
    for (PgOutputMessage m : messages) {
      PgOutputMessage kept = added.filter(m, pending);
      if (kept != null) {
        out.add(kept);
      }
    }
    return out;
  }

  private void relations() {
    feed(
        SyntheticStream.relation(0, OLD, "account", 'd', "id:23:k"),
        SyntheticStream.relation(0, NEW, "fresh", 'd', "id:23:k"));
  }

  @Test
  void changesOfTheAddedTableBeforeTheConsistentPointAreDroppedTheOthersKept() {
    relations();
    PgOutputMessage begin = SyntheticStream.begin(P - 0x10, 700);
    PgOutputMessage oldInsert = SyntheticStream.insert(0, OLD, "1");
    PgOutputMessage commit = SyntheticStream.commit(P - 0x10);
    List<PgOutputMessage> out =
        feed(
            begin,
            oldInsert,
            SyntheticStream.insert(0, NEW, "1"),
            SyntheticStream.update(0, NEW, (char) 0, null, "1"),
            SyntheticStream.delete(0, NEW, 'K', "1"),
            commit);
    assertThat(out).containsExactly(begin, oldInsert, commit);
  }

  @Test
  void changesAtOrAfterThePointAndWithNoSnapshotWaitingAreKept() {
    relations();
    PgOutputMessage atP = SyntheticStream.insert(0, NEW, "2");
    assertThat(feed(SyntheticStream.begin(P, 701), atP)).endsWith(atP);
    point = -1;
    PgOutputMessage none = SyntheticStream.insert(0, NEW, "3");
    assertThat(feed(SyntheticStream.begin(P - 0x10, 702), none)).endsWith(none);
  }

  @Test
  void aTruncateLosesOnlyTheAddedTable() {
    relations();
    feed(SyntheticStream.begin(P - 0x10, 703));
    assertThat(feed(SyntheticStream.truncate(0, NEW))).isEmpty();
    PgOutputMessage.Truncate rest =
        (PgOutputMessage.Truncate) feed(SyntheticStream.truncate(0, OLD, NEW)).get(0);
    assertThat(rest.relationOids()).containsExactly(OLD);
  }

  @Test
  void aStreamedTransactionThatLostChangesAndCommitsAfterThePointFails() {
    relations();
    assertThat(
            feed(
                SyntheticStream.streamStart(900, true),
                SyntheticStream.insert(900, NEW, "1"),
                SyntheticStream.streamStop()))
        .noneMatch(m -> m instanceof PgOutputMessage.Insert);
    added.beforeCommit(900, P - 1); // before P: the snapshot has them
    feed(
        SyntheticStream.streamStart(901, true),
        SyntheticStream.insert(901, NEW, "1"),
        SyntheticStream.streamStop());
    assertThatThrownBy(() -> added.beforeCommit(901, P))
        .isInstanceOf(AddedTables.DroppedTooMuchException.class)
        .hasMessageContaining("reads the signal again");
    // an aborted one is forgotten
    feed(
        SyntheticStream.streamStart(902, true),
        SyntheticStream.insert(902, NEW, "1"),
        SyntheticStream.streamStop(),
        SyntheticStream.streamAbort(902, 902));
    added.beforeCommit(902, P + 1);
  }

  @Test
  void theSignalMessageIsTakenAndParsedAndAnUntrustedOneIgnored() throws Exception {
    String content =
        PublicationReconciler.message(
            "include-1", List.<String[]>of(new String[] {"public", "fresh"}));
    LogicalMessage m =
        new LogicalMessage(
            0,
            true,
            0x100,
            PublicationReconciler.SIGNAL_PREFIX,
            content.getBytes(StandardCharsets.UTF_8));
    assertThat(feed(SyntheticStream.begin(0x200, 1), m)).hasSize(1);
    assertThat(added.idle()).as("waits for its commit").isFalse();

    Signal s = AddedTables.parse(content);
    assertThat(s.id()).isEqualTo("include-1");
    assertThat(s.tables()).extracting(Signal.TableRequest::display).containsExactly("public.fresh");

    AddedTables untrusted = new AddedTables(false);
    assertThat(untrusted.filter(m, pending)).as("taken, never published").isNull();
    assertThat(untrusted.idle()).as("ignored: nothing waits").isTrue();
    LogicalMessage plain =
        new LogicalMessage(
            0,
            false,
            0x100,
            PublicationReconciler.SIGNAL_PREFIX,
            content.getBytes(StandardCharsets.UTF_8));
    AddedTables other = new AddedTables(true);
    assertThat(other.filter(plain, pending)).isNull();
    assertThat(other.idle()).as("non-transactional: ignored").isTrue();
  }

  @Test
  void malformedMessagesAreRefused() {
    assertThatThrownBy(() -> AddedTables.parse("drop-tables x\npublic.a"))
        .isInstanceOf(MalformedSignalException.class);
    assertThatThrownBy(() -> AddedTables.parse("added-tables id"))
        .isInstanceOf(MalformedSignalException.class)
        .hasMessageContaining("no table");
    assertThatThrownBy(() -> AddedTables.parse("added-tables id\npublic.a WHERE id > 1"))
        .isInstanceOf(MalformedSignalException.class);
  }

  @Test
  void addedTablesJoinAWaitingSnapshotOnce() {
    Signal waiting =
        new Signal(
            "user-1",
            Signal.Action.SNAPSHOT,
            List.of(new Signal.TableRequest("public", "account", null)));
    Signal joined =
        new Signal(
            "include-1",
            Signal.Action.SNAPSHOT,
            List.of(
                new Signal.TableRequest("public", "account", null),
                new Signal.TableRequest("public", "fresh", null)));
    Signal merged = AddedSnapshots.merged(waiting, joined);
    assertThat(merged.id()).isEqualTo("user-1");
    assertThat(merged.tables())
        .extracting(Signal.TableRequest::display)
        .containsExactly("public.account", "public.fresh");
    assertThat(AddedSnapshots.names(Set.of(), joined))
        .containsExactlyInAnyOrder("public.account", "public.fresh");
  }
}
