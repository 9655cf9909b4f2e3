package io.trellara.cli;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.log.LocalLogFormat;
import io.trellara.protocol.log.LocalLogReader;
import io.trellara.protocol.log.LogRecord;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * Turns what the user points at (a message file, a local log, a directory of message files) into
 * reports.
 */
final class Inputs {
  private Inputs() {}

  static List<MessageReport> reports(Path path, MessageKind kind) {
    List<MessageReport> out = new ArrayList<>();
    if (Files.isDirectory(path)) {
      try (Stream<Path> files = Files.list(path)) {
        files
            .filter(p -> p.toString().endsWith(".bin"))
            .sorted()
            .forEach(p -> out.addAll(reports(p, kind)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    } else if (isLocalLog(path)) {
      try (LocalLogReader reader = LocalLogReader.open(path)) {
        for (LogRecord r = reader.next(); r != null; r = reader.next()) {
          if (r.isSpill()) {
            continue; // private spill records are not protocol messages
          }
          out.add(MessageReport.of(path + "@" + r.offset(), r.kind(), r.message()));
        }
      }
    } else {
      try {
        out.add(MessageReport.of(path.toString(), kind, Files.readAllBytes(path)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out;
  }

  static boolean isLocalLog(Path path) {
    try (InputStream in = Files.newInputStream(path)) {
      byte[] magic = in.readNBytes(4);
      return Arrays.equals(magic, LocalLogFormat.MAGIC_TLG2)
          || Arrays.equals(magic, LocalLogFormat.MAGIC_TLG1);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
