package io.trellara.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.log.FsyncPolicy;
import io.trellara.protocol.log.LocalLogWriter;
import io.trellara.protocol.sample.SampleTransactions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrellaraCliTest {
  private static final Path KIT = Path.of("../conformance/vectors");
  @TempDir Path dir;

  private record Result(int status, String out) {}

  private static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = TrellaraCli.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Result(status, out + err.toString());
  }

  @Test
  void inspectsAChunkedBarrierInTheWireVocabulary() {
    Result r = run("inspect", "--summary", KIT.resolve("valid-strict-chunked").toString());
    assertThat(r.status()).isZero();
    assertThat(r.out())
        .contains("\"boundary\": \"strict_chunked_transaction_order\"")
        .contains("\"counts\": \"dml=8 ddl=1 source_total=9\"")
        .contains("\"kind\": \"commit_marker\"");
  }

  @Test
  void inspectPrintsTheMessageBody() {
    Result r = run("inspect", KIT.resolve("valid-envelope").toString());
    assertThat(r.out()).contains("\"verified\": true", "\"source_id\": \"pg-orders\"");
  }

  @Test
  void inspectRendersPositionalRowImagesByTheSchemaVersionsColumnNames() {
    String out = run("inspect", KIT.resolve("valid-envelope").toString()).out();
    assertThat(out)
        .contains(
            "{\"total_order\": 1, \"relation\": \"public.orders\", \"after\": {\"id\": \"1\","
                + " \"customer\": \"customer-1\", \"amount\": \"7.01\"");
    assertThat(out)
        .as("the update leaves the TOASTed note unchanged")
        .contains("\"(not sent)\": [\"note\"]");
    assertThat(out)
        .as("the delete's key-only old image")
        .contains(
            "\"before\": {\"id\": \"2\", \"(not sent)\":"
                + " [\"customer\", \"amount\", \"placed_at\", \"note\"]}");
  }

  @Test
  void verifyNamesTheRuleAndExitsNonZero() {
    Result r = run("verify", KIT.resolve("checksum-envelope").toString());
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.out()).contains("REJECTED", "rule=CHECKSUM_MISMATCH");
    Result ok = run("verify", KIT.resolve("valid-envelope").toString());
    assertThat(ok.status()).isZero();
    assertThat(ok.out()).contains("OK", "dml=8 ddl=1 source_total=9");
  }

  /**
   * Every rule, not only the first: a manifest whose first entry overshoots and second reverses.
   */
  @Test
  void verifyReportsEveryRuleAMessageBreaks() {
    Result r = run("verify", KIT.resolve("manifest-entries-judged-entry-by-entry").toString());
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.out())
        .contains(
            "rule=MANIFEST_RANGE_ABOVE_GLOBAL_COUNT field=partitions[0].last_total_order",
            "rule=MANIFEST_REVERSED_RANGE field=partitions[1].last_total_order",
            "1 message(s), 1 rejected");
    assertThat(r.out().lines().filter(l -> l.startsWith("REJECTED"))).hasSize(2);
  }

  @Test
  void inspectListsEveryViolationOfARejectedMessage() {
    String out =
        run("inspect", KIT.resolve("manifest-entries-judged-entry-by-entry").toString()).out();
    assertThat(out)
        .contains(
            "\"verified\": false",
            "\"violations\": [{\"rule\": \"MANIFEST_RANGE_ABOVE_GLOBAL_COUNT\"",
            "{\"rule\": \"MANIFEST_REVERSED_RANGE\", \"field\": \"partitions[1].last_total_order\"");
  }

  @Test
  void verifyChecksTheBarrierOnlyWhenEveryMessageOfItPassed() {
    Result r = run("verify", KIT.resolve("checksum-chunk").toString());
    assertThat(r.out())
        .contains("rule=CHECKSUM_MISMATCH", "BARRIER NOT CHECKED")
        .doesNotContain("MISSING_CHUNK");
  }

  @Test
  void verifyChecksTheBarrierOfADirectory() {
    Result r = run("verify", KIT.resolve("barrier-missing-chunk").toString());
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.out()).contains("REJECTED barrier rule=MISSING_CHUNK");
    assertThat(run("verify", KIT.resolve("valid-strict-chunked").toString()).out())
        .contains(
            "BARRIER OK strict_chunked_transaction_order dml=8 ddl=1 source_total=9 chunks=3");
  }

  @Test
  void logDumpVerifyAndRecover() throws Exception {
    Path log = dir.resolve("spill.tlg");
    try (LocalLogWriter w = LocalLogWriter.open(log, FsyncPolicy.ON_FLUSH)) {
      w.append(
          MessageKind.ENVELOPE,
          TrellaraCodec.encode(SampleTransactions.envelope(3, false)).bytes());
      w.append(
          MessageKind.ENVELOPE, TrellaraCodec.encode(SampleTransactions.envelope(5, true)).bytes());
    }
    Result dump = run("log", "dump", log.toString());
    assertThat(dump.status()).isZero();
    assertThat(dump.out()).contains("offset=0 format=TLG2 kind=envelope", "2 frame(s), 0 rejected");
    Files.write(log, java.util.Arrays.copyOf(Files.readAllBytes(log), (int) Files.size(log) - 5));
    assertThat(run("log", "verify", log.toString()).out()).contains("torn tail");
    Result recover = run("log", "recover", log.toString());
    assertThat(recover.status()).isZero();
    assertThat(recover.out()).contains("torn tail removed");
    assertThat(run("inspect", "--summary", log.toString()).out())
        .contains("dml=5 ddl=0 source_total=5");
  }

  @Test
  void corruptLogIsReportedNotSkipped() throws Exception {
    Path log = dir.resolve("bad.tlg");
    try (LocalLogWriter w = LocalLogWriter.open(log, FsyncPolicy.NEVER)) {
      w.append(MessageKind.ENVELOPE, new byte[] {1, 2, 3});
      w.append(MessageKind.ENVELOPE, new byte[] {4, 5, 6});
    }
    byte[] raw = Files.readAllBytes(log);
    raw[9] ^= 1;
    Files.write(log, raw);
    Result r = run("log", "verify", log.toString());
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.out()).contains("CORRUPT", "offset 0");
    assertThat(run("log", "recover", log.toString()).status()).isEqualTo(1);
  }

  @Test
  void identityEncodesAndDecodes() {
    Result enc = run("identity", "encode", "-t", "int8", "-t", "text", "42", "hello");
    assertThat(enc.status()).isZero();
    String hex = enc.out().trim();
    assertThat(hex).startsWith("0201");
    Result dec = run("identity", "decode", hex);
    assertThat(dec.status()).isZero();
    assertThat(dec.out()).contains("42", "hello");
  }
}
