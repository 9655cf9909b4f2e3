package io.trellara.source.pgoutput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.source.pgoutput.PgOutputCaptureScenarios.Scenario;
import io.trellara.source.pgoutput.PgOutputMessage.Insert;
import io.trellara.source.pgoutput.PgOutputMessage.StreamAbort;
import io.trellara.source.pgoutput.PgOutputScenarioExpectations.StreamAnalysis;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The parser driven by pgoutput bytes captured from PostgreSQL 17 (see {@link
 * PgOutputFixtureCapture}).
 */
class PgOutputParserFixtureTest {

  private static List<PgOutputMessage> parse(Scenario scenario) {
    return PgOutputFixtures.parseAll(
        PgOutputFixtures.load(scenario.fileName), scenario.protocolVersion);
  }

  @Test
  void decodesInsertUpdateDeleteTruncateAcrossThreeTablesInOneTransaction() {
    PgOutputScenarioExpectations.multiTableDml(parse(Scenario.MULTI_TABLE_DML));
  }

  @Test
  void marksUntouchedToastedColumnAsUnchangedNotNull() {
    PgOutputScenarioExpectations.toastUnchanged(parse(Scenario.TOAST_UNCHANGED));
  }

  @Test
  void decodesKeyOldTupleForPrimaryKeyChangeAndFullOldTupleForReplicaIdentityFull() {
    PgOutputScenarioExpectations.oldTuples(parse(Scenario.OLD_TUPLES));
  }

  @Test
  void decodesStreamedTransactionsWithSubtransactionAndTopLevelAborts() {
    PgOutputScenarioExpectations.streamedProto2(parse(Scenario.STREAMED_PROTO2));
  }

  @Test
  void decodesSameLargeWorkloadUnderProtocolOneWithoutStreaming() {
    PgOutputScenarioExpectations.largeProto1(parse(Scenario.LARGE_PROTO1));
  }

  @Test
  void decodesTransactionalAndNonTransactionalLogicalMessages() {
    PgOutputScenarioExpectations.logicalMessages(parse(Scenario.LOGICAL_MESSAGES));
  }

  @Test
  void decodesTypeMessagesForEnumAndDomainColumnsAndTheOriginOfATransaction() {
    PgOutputScenarioExpectations.typeAndOrigin(parse(Scenario.TYPE_AND_ORIGIN));
  }

  @Test
  void decodesBinaryColumnValues() {
    PgOutputScenarioExpectations.binaryProto2(parse(Scenario.BINARY_PROTO2));
  }

  @Test
  void committedRowsOfStreamedProtocolTwoEqualThoseOfProtocolOne() {
    List<PgOutputMessage> streamed = parse(Scenario.STREAMED_PROTO2);
    StreamAnalysis s = StreamAnalysis.of(streamed);
    long committed = s.commits.get(0).xid();
    Set<Long> abortedSubxids =
        s.aborts.stream()
            .filter(a -> !a.abortsTopLevelTransaction())
            .map(StreamAbort::subtransactionXid)
            .collect(Collectors.toSet());
    List<TupleData> streamedRows =
        s.inserts.stream()
            .filter(
                c ->
                    c.topLevelXid() == committed
                        && !abortedSubxids.contains(c.insert().streamXid()))
            .map(c -> c.insert().newTuple())
            .toList();
    List<TupleData> proto1Rows =
        parse(Scenario.LARGE_PROTO1).stream()
            .filter(m -> m instanceof Insert)
            .map(m -> ((Insert) m).newTuple())
            .toList();
    assertThat(sortedById(streamedRows)).isEqualTo(sortedById(proto1Rows));
  }

  @ParameterizedTest
  @EnumSource(Scenario.class)
  void everyMessageParsesToItsOwnTypeWithoutMovingTheBuffer(Scenario scenario) {
    PgOutputParser parser = new PgOutputParser(scenario.protocolVersion);
    for (byte[] bytes : PgOutputFixtures.load(scenario.fileName)) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      PgOutputMessage message = parser.parse(buffer);
      assertThat(message.type()).isEqualTo(bytes[0]);
      assertThat(buffer.position()).isZero();
    }
    assertThat(parser.inStreamBlock()).isFalse();
  }

  @ParameterizedTest
  @EnumSource(Scenario.class)
  void everyTruncatedFixtureMessageFailsWithTheTypedException(Scenario scenario) {
    PgOutputParser parser = new PgOutputParser(scenario.protocolVersion);
    List<byte[]> messages = PgOutputFixtures.load(scenario.fileName);
    // the streamed fixture has ~4,000 messages of one shape: every 50th is enough there
    int step = messages.size() > 100 ? 50 : 1;
    for (int i = 0; i < messages.size(); i++) {
      byte[] bytes = messages.get(i);
      boolean inBlock = parser.inStreamBlock();
      if (i % step == 0 || bytes[0] != 'I') {
        for (int cut = 0; cut < bytes.length; cut++) {
          ByteBuffer shortBuffer = ByteBuffer.wrap(bytes, 0, cut);
          int at = cut;
          assertThatThrownBy(() -> parser.parse(shortBuffer, inBlock))
              .as("message %d (%c) cut to %d of %d bytes", i, (char) bytes[0], at, bytes.length)
              .isInstanceOf(PgOutputProtocolException.class);
        }
      }
      parser.parse(ByteBuffer.wrap(bytes));
    }
  }

  @ParameterizedTest
  @EnumSource(Scenario.class)
  void everyFixtureMessageWithATrailingByteFails(Scenario scenario) {
    PgOutputParser parser = new PgOutputParser(scenario.protocolVersion);
    for (byte[] bytes : PgOutputFixtures.load(scenario.fileName)) {
      byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + 1);
      boolean inBlock = parser.inStreamBlock();
      assertThatThrownBy(() -> parser.parse(ByteBuffer.wrap(longer), inBlock))
          .isInstanceOf(PgOutputProtocolException.class)
          .hasMessageContaining("trailing");
      parser.parse(ByteBuffer.wrap(bytes));
    }
  }

  private static List<TupleData> sortedById(List<TupleData> rows) {
    List<TupleData> sorted = new ArrayList<>(rows);
    sorted.sort(Comparator.comparingInt(t -> Integer.parseInt(t.textValue(0))));
    return sorted;
  }
}
