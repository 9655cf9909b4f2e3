package io.trellara.source.signal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.source.capture.SyntheticStream;
import io.trellara.source.capture.ddl.CapturedTables;
import io.trellara.source.pg.PgEndpoint;
import io.trellara.source.pgoutput.PgOutputMessage;
import io.trellara.source.replication.BoundarySettings;
import io.trellara.source.replication.Outbound;
import io.trellara.source.replication.SourceSettings;
import io.trellara.source.replication.TransactionPipeline;
import io.trellara.source.snapshot.OnlineSnapshotProgress;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The signal table taken out of the stream: its rows never reach the pipeline in front; malformed
 * and refused signals are logged and ignored, never fatal; a rolled-back signal signals nothing.
 * The source database is a closed port here, so a snapshot signal is refused (its tables cannot be
 * looked up) rather than carried out: OnlineSnapshotIT carries one out.
 */
class SignalPipelineTest {
  static final long DATA_OID = 16_400;
  static final long SIGNAL_OID = 16_500;

  @TempDir Path spill;
  private final List<PgOutputMessage> passed = new ArrayList<>();
  private TransactionPipeline pipeline;
  private SourceSettings settings;

  @BeforeEach
  void pipeline() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: connections to it are refused
    }
    settings =
        new SourceSettings(
            new PgEndpoint("127.0.0.1", port, "db", "u", "", "disable", "", "", "", ""),
            "src",
            "db",
            "flow",
            "slot",
            "pub",
            false,
            List.of(),
            2,
            true,
            1000,
            1000,
            0,
            true,
            false,
            spill,
            1 << 20,
            1 << 20,
            16,
            1 << 20,
            BoundarySettings.strict(),
            CapturedTables.NONE);
    pipeline =
        SignalPipeline.factory(
                settings, new Signal.TableRequest("public", "signals", null), Recording::new)
            .apply(o -> {});
  }

  private final class Recording implements TransactionPipeline {
    Recording(Consumer<Outbound> out) {}

    @Override
    public void accept(PgOutputMessage message, ByteBuffer raw, long walStart) {
      passed.add(message);
    }

    @Override
    public boolean idle() {
      return true;
    }

    @Override
    public void close() {}
  }

  private void feed(PgOutputMessage... messages) {
    for (PgOutputMessage m : messages) {
      pipeline.accept(m, SyntheticStream.wire(m), 0);
    }
  }

  private static PgOutputMessage signalRelation(long xid) {
    return SyntheticStream.relation(
        xid, SIGNAL_OID, "signals", 'd', "id:25:k", "type:25", "data:25");
  }

  @Test
  void signalRowsNeverReachThePipelineAndMalformedOnesAreIgnored() {
    PgOutputMessage dataRelation = SyntheticStream.relation(0, DATA_OID, "t", 'd', "id:23:k");
    PgOutputMessage dataInsert = SyntheticStream.insert(0, DATA_OID, "1");
    PgOutputMessage begin = SyntheticStream.begin(0x1000, 700);
    PgOutputMessage commit = SyntheticStream.commit(0x1000);
    feed(
        begin,
        dataRelation,
        dataInsert,
        signalRelation(0),
        SyntheticStream.insert(0, SIGNAL_OID, "bad-1", "explode", "public.t"),
        SyntheticStream.insert(0, SIGNAL_OID, "bad-2", "snapshot", "public.t; DROP TABLE t"),
        SyntheticStream.insert(0, SIGNAL_OID, "", "snapshot", "public.t"),
        SyntheticStream.insert(0, SIGNAL_OID, "refused-1", "pause-snapshot", null),
        SyntheticStream.insert(0, SIGNAL_OID, "refused-2", "resume-snapshot", null),
        SyntheticStream.insert(0, SIGNAL_OID, "refused-3", "stop-snapshot", null),
        SyntheticStream.insert(0, SIGNAL_OID, "refused-4", "snapshot", "public.t WHERE id > 1"),
        SyntheticStream.insert(0, SIGNAL_OID, "refused-5", "snapshot", "public.t"),
        SyntheticStream.update(0, SIGNAL_OID, (char) 0, null, "x", "y", "z"),
        SyntheticStream.delete(0, SIGNAL_OID, 'K', "x"),
        commit);
    assertThat(passed).containsExactly(begin, dataRelation, dataInsert, commit);
    assertThat(pipeline.idle()).as("no signal held, no snapshot waiting").isTrue();
  }

  @Test
  void aSignalIsHeldUntilItsTransactionCommitsAndDroppedWhenItAborts() {
    feed(
        SyntheticStream.streamStart(900, true),
        signalRelation(900),
        SyntheticStream.insert(900, SIGNAL_OID, "s-1", "pause-snapshot", null),
        SyntheticStream.streamStop());
    assertThat(pipeline.idle()).as("the signal waits for its transaction's end").isFalse();
    feed(SyntheticStream.streamAbort(900, 900));
    assertThat(pipeline.idle()).isTrue();
    assertThat(passed).noneMatch(m -> m instanceof PgOutputMessage.Insert);

    feed(
        SyntheticStream.streamStart(901, true),
        SyntheticStream.insert(901, SIGNAL_OID, "s-2", "pause-snapshot", null),
        SyntheticStream.streamStop());
    assertThat(pipeline.idle()).isFalse();
    feed(SyntheticStream.streamCommit(901, 0x2000));
    assertThat(pipeline.idle()).as("carried out (here: refused) at its commit").isTrue();
  }

  @Test
  void aTruncateOfTheSignalTableAloneIsDroppedAndOneWithOtherTablesGoesOn() {
    feed(signalRelation(0));
    PgOutputMessage alone = SyntheticStream.truncate(0, SIGNAL_OID);
    PgOutputMessage mixed = SyntheticStream.truncate(0, SIGNAL_OID, DATA_OID);
    feed(alone, mixed);
    assertThat(passed).hasSize(1);
    PgOutputMessage.Truncate rest = (PgOutputMessage.Truncate) passed.get(0);
    assertThat(rest.relationOids()).containsExactly(DATA_OID);
    assertThat(SyntheticStream.wire(rest))
        .as("its bytes are pgoutput's")
        .isEqualTo(Truncates.wire(rest));
  }

  @Test
  void anAddedTablesMessageIsNeverPublishedAndFailsClosedWhenItsSnapshotCannotStart() {
    TransactionPipeline trusting =
        SignalPipeline.factory(
                settings, null, null, true, Recording::new, new OnlineSnapshotProgress())
            .apply(o -> {});
    byte[] content = "added-tables t-1\npublic.t".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    PgOutputMessage message =
        new PgOutputMessage.LogicalMessage(0, true, 0x900, "trellara.signal", content);
    PgOutputMessage begin = SyntheticStream.begin(0x1000, 700);
    trusting.accept(begin, SyntheticStream.wire(begin), 0);
    trusting.accept(message, ByteBuffer.wrap(content), 0);
    assertThat(passed).containsExactly(begin);
    assertThat(trusting.idle()).as("the message waits for its commit").isFalse();
    PgOutputMessage commit = SyntheticStream.commit(0x1000);
    // the source is unreachable here: ignoring the message would stream the table without its rows
    assertThatThrownBy(() -> trusting.accept(commit, SyntheticStream.wire(commit), 0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("restart the task");
    assertThat(passed).as("the signal's transaction is not handed on").containsExactly(begin);
  }
}
