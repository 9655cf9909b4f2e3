package io.trellara.protocol.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trellara.protocol.MessageKind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalLogTest {
  @TempDir Path dir;

  private static byte[] msg(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private Path writeThree(FsyncPolicy policy) {
    Path file = dir.resolve("log");
    try (LocalLogWriter w = LocalLogWriter.open(file, policy)) {
      w.append(MessageKind.ENVELOPE, msg("first"));
      w.append(MessageKind.CHUNK, msg("second message"));
      w.append(MessageKind.COMMIT_MARKER, msg("third"));
    }
    return file;
  }

  private static List<LogRecord> readAll(Path file) {
    List<LogRecord> out = new ArrayList<>();
    try (LocalLogReader r = LocalLogReader.open(file)) {
      for (LogRecord rec = r.next(); rec != null; rec = r.next()) {
        out.add(rec);
      }
    }
    return out;
  }

  @Test
  void writesTlg2FramesAndReadsThemBack() throws IOException {
    Path file = writeThree(FsyncPolicy.EVERY_FRAME);
    byte[] raw = Files.readAllBytes(file);
    assertThat(new String(raw, 0, 4, StandardCharsets.US_ASCII)).isEqualTo("TLG2");
    assertThat(ByteBuffer.wrap(raw, 4, 4).getInt())
        .isEqualTo(1 + "first".length()); // big-endian length
    List<LogRecord> records = readAll(file);
    assertThat(records)
        .extracting(LogRecord::kind)
        .containsExactly(MessageKind.ENVELOPE, MessageKind.CHUNK, MessageKind.COMMIT_MARKER);
    assertThat(records.get(1).message()).isEqualTo(msg("second message"));
    assertThat(records.get(1).offset()).isEqualTo(8 + 6 + 4);
  }

  @Test
  void stopsAtTheLastCompleteFrameForATornTailAtEveryByteOfTheLastFrame() throws IOException {
    Path file = writeThree(FsyncPolicy.NEVER);
    byte[] raw = Files.readAllBytes(file);
    long lastStart = readAll(file).get(2).offset();
    for (int cut = (int) lastStart; cut < raw.length; cut++) {
      Path torn = dir.resolve("torn-" + cut);
      Files.write(torn, Arrays.copyOf(raw, cut));
      try (LocalLogReader r = LocalLogReader.open(torn)) {
        assertThat(r.next()).isNotNull();
        assertThat(r.next()).isNotNull();
        assertThat(r.next()).as("cut at %d", cut).isNull();
        assertThat(r.tornTail()).isEqualTo(cut > lastStart);
        assertThat(r.validEnd()).isEqualTo(lastStart);
      }
    }
  }

  @Test
  void openingForAppendTruncatesATornTailFirst() throws IOException {
    Path file = writeThree(FsyncPolicy.ON_FLUSH);
    byte[] raw = Files.readAllBytes(file);
    Files.write(file, Arrays.copyOf(raw, raw.length - 3));
    try (LocalLogWriter w = LocalLogWriter.open(file, FsyncPolicy.ON_FLUSH)) {
      w.append(MessageKind.MANIFEST, msg("after recovery"));
    }
    assertThat(readAll(file))
        .extracting(r -> new String(r.message(), StandardCharsets.UTF_8))
        .containsExactly("first", "second message", "after recovery");
  }

  @Test
  void corruptionInTheMiddleIsATypedErrorWithTheOffsetNeverASkip() throws IOException {
    Path file = writeThree(FsyncPolicy.NEVER);
    byte[] raw = Files.readAllBytes(file);
    long second = readAll(file).get(1).offset();
    raw[(int) second + 10] ^= 0x20;
    Files.write(file, raw);
    try (LocalLogReader r = LocalLogReader.open(file)) {
      r.next();
      assertThatThrownBy(r::next)
          .isInstanceOfSatisfying(
              LocalLogCorruptionException.class, e -> assertThat(e.offset()).isEqualTo(second));
    }
    assertThatThrownBy(() -> LocalLogWriter.open(file, FsyncPolicy.NEVER))
        .isInstanceOf(LocalLogCorruptionException.class);
  }

  @Test
  void unknownMagicAndOversizedLengthAreCorruption() throws IOException {
    Path magic = dir.resolve("magic");
    Files.write(magic, msg("TLG3\0\0\0\1xabcd"));
    assertThatThrownBy(() -> readAll(magic))
        .isInstanceOf(LocalLogCorruptionException.class)
        .hasMessageContaining("magic");
    Path huge = dir.resolve("huge");
    Files.write(
        huge, ByteBuffer.allocate(12).put(LocalLogFormat.MAGIC_TLG2).putInt(0x7FFF_FFFF).array());
    assertThatThrownBy(() -> readAll(huge))
        .isInstanceOf(LocalLogCorruptionException.class)
        .hasMessageContaining("cap");
    Path junk = dir.resolve("junk");
    Files.write(junk, msg("XY"));
    assertThatThrownBy(() -> readAll(junk)).isInstanceOf(LocalLogCorruptionException.class);
  }

  @Test
  void spillRecordsRoundTripAndAreNotMessages() {
    Path file = dir.resolve("spill");
    try (LocalLogWriter w = LocalLogWriter.open(file, FsyncPolicy.NEVER)) {
      w.appendSpill(msg("xIraw pgoutput"), 2, 12);
    }
    List<LogRecord> records = readAll(file);
    assertThat(records)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.isSpill()).isTrue();
              assertThat(r.message()).isEqualTo(msg("raw pgoutput"));
            });
  }

  @Test
  void readsTlg1FramesAsBareEnvelopes() throws IOException {
    byte[] body = msg("an envelope's protobuf bytes");
    CRC32 crc = new CRC32();
    crc.update(body);
    ByteBuffer frame =
        ByteBuffer.allocate(8 + body.length + 4)
            .put(LocalLogFormat.MAGIC_TLG1)
            .putInt(body.length)
            .put(body)
            .putInt((int) crc.getValue());
    Path file = dir.resolve("old");
    Files.write(file, frame.array());
    try (LocalLogWriter w = LocalLogWriter.open(file, FsyncPolicy.NEVER)) {
      w.append(MessageKind.ENVELOPE, msg("new"));
    }
    List<LogRecord> records = readAll(file);
    assertThat(records).extracting(LogRecord::formatVersion).containsExactly(1, 2);
    assertThat(records.get(0).kind()).isEqualTo(MessageKind.ENVELOPE);
    assertThat(records.get(0).message()).isEqualTo(body);
  }
}
