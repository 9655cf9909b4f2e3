package io.trellara.source.capture;

import io.trellara.protocol.v1.ChangeRecord;
import io.trellara.protocol.v1.DdlEvent;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.source.capture.ddl.CapturedTables;
import io.trellara.source.pgoutput.PgOutputMessage;
import io.trellara.source.pgoutput.PgOutputMessage.LogicalMessage;
import io.trellara.source.pgoutput.PgOutputParser;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

/** Loads the pgoutput fixtures and drives them through the assembler and the envelope builder. */
final class CaptureTestSupport {

  static final CaptureIdentity IDENTITY = new CaptureIdentity("pg-test", "testdb", "test-flow");
  static final String VALID_DDL_JSON =
      "{\"command_tag\": \"ALTER TABLE\", \"object_type\": \"table\","
          + " \"object_identity\": \"public.orders\", \"schema_name\": \"public\","
          + " \"statement\": \"ALTER TABLE orders ADD COLUMN x int\", \"search_path\": \"\\\"$user\\\", public\","
          + " \"relations\": \"\\\"public\\\".\\\"orders\\\":0\", \"temporary\": \"false\"}";

  /** The fixtures were recorded through a FOR ALL TABLES publication. */
  static final CapturedTables ALL_TABLES = new CapturedTables(true, Set.of(), List.of());

  private CaptureTestSupport() {}

  /** A fixture: raw messages and their parse. */
  record Fixture(List<byte[]> raw, List<PgOutputMessage> parsed) {}

  static Fixture load(String name, int protocolVersion) {
    String resource = "/pgoutput/" + name + ".pgoutput";
    List<byte[]> raw = new ArrayList<>();
    try (InputStream in = CaptureTestSupport.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing fixture " + resource);
      }
      DataInputStream data = new DataInputStream(in);
      while (true) {
        int length;
        try {
          length = data.readInt();
        } catch (EOFException end) {
          break;
        }
        byte[] m = new byte[length];
        data.readFully(m);
        raw.add(m);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    PgOutputParser parser = new PgOutputParser(protocolVersion);
    List<PgOutputMessage> parsed = new ArrayList<>();
    for (byte[] m : raw) {
      parsed.add(parser.parse(ByteBuffer.wrap(m)));
    }
    return new Fixture(raw, parsed);
  }

  /** Replaces the content of every trellara.ddl message with a valid trigger-style JSON object. */
  static UnaryOperator<PgOutputMessage> validDdlContent() {
    return m -> {
      if (m instanceof LogicalMessage l && l.prefix().equals("trellara.ddl")) {
        return new LogicalMessage(
            l.streamXid(),
            l.transactional(),
            l.lsn(),
            l.prefix(),
            VALID_DDL_JSON.getBytes(StandardCharsets.UTF_8));
      }
      return m;
    };
  }

  /** Collects committed transactions as envelopes (built inside the handler, as required). */
  static final class EnvelopeCollector implements CommittedTransactionHandler {
    final List<TransactionEnvelope> envelopes = new ArrayList<>();
    final List<Long> emptyCommits = new ArrayList<>();
    final List<Boolean> spilled = new ArrayList<>();
    final StrictEnvelopeBuilder builder;

    EnvelopeCollector(long maxBytes) {
      this.builder = new StrictEnvelopeBuilder(maxBytes);
    }

    EnvelopeCollector() {
      this(64L * 1024 * 1024);
    }

    @Override
    public void onCommitted(CapturedTransaction tx) {
      spilled.add(tx.spilled());
      envelopes.add(builder.build(tx));
    }

    @Override
    public void onEmptyCommit(long xid, long commitLsn, long endLsn) {
      emptyCommits.add(xid);
    }
  }

  /**
   * Runs a fixture through a fresh assembler. walStart of message i is i + 1 (the fixtures carry no
   * WAL positions; small values keep begin_lsn below the commit LSN). With {@code raw} the raw
   * bytes are passed.
   */
  static EnvelopeCollector run(
      Fixture f,
      Path spillDir,
      long threshold,
      boolean raw,
      UnaryOperator<PgOutputMessage> rewrite) {
    EnvelopeCollector collector = new EnvelopeCollector();
    try (TransactionAssembler assembler =
        new TransactionAssembler(
            IDENTITY,
            CaptureSettings.defaults(spillDir)
                .withSpillThresholdBytes(threshold)
                .withCapturedTables(ALL_TABLES),
            collector)) {
      for (int i = 0; i < f.parsed().size(); i++) {
        PgOutputMessage original = f.parsed().get(i);
        PgOutputMessage m = rewrite.apply(original);
        if (raw && m == original) {
          assembler.accept(m, ByteBuffer.wrap(f.raw().get(i)), i + 1);
        } else {
          assembler.accept(m, i + 1);
        }
      }
      if (!assembler.idle()) {
        throw new AssertionError("transactions still in flight at the end of the fixture");
      }
    }
    return collector;
  }

  static EnvelopeCollector run(Fixture f, Path spillDir) {
    return run(
        f,
        spillDir,
        CaptureSettings.DEFAULT_SPILL_THRESHOLD_BYTES,
        false,
        UnaryOperator.identity());
  }

  /**
   * The changes without the fields that depend on LSNs and xids (transaction_id, idempotency_key).
   */
  static List<ChangeRecord> withoutTransactionFields(TransactionEnvelope e) {
    List<ChangeRecord> out = new ArrayList<>();
    for (ChangeRecord c : e.getChangesList()) {
      out.add(c.toBuilder().clearTransactionId().clearIdempotencyKey().build());
    }
    return out;
  }

  static List<DdlEvent> ddlWithoutTransactionFields(TransactionEnvelope e) {
    List<DdlEvent> out = new ArrayList<>();
    for (DdlEvent d : e.getDdlEventsList()) {
      out.add(d.toBuilder().clearTransactionId().build());
    }
    return out;
  }
}
