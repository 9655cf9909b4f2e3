package io.trellara.protocol.conformance;

import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import io.trellara.protocol.validation.ProtocolRule;
import io.trellara.protocol.validation.ProtocolViolationException;
import io.trellara.protocol.validation.StreamingBarrierVerifier;
import io.trellara.protocol.verify.TransactionVerifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What a correct consumer does with a vector: decode every message, then check the barrier if there
 * is one.
 */
final class VectorJudge {
  private VectorJudge() {}

  /**
   * Every rule the vector breaks (empty: accepted): what a vector's {@code rules} must list
   * exactly.
   */
  static Set<ProtocolRule> rulesBroken(Vector v) {
    return TransactionVerifier.verify(v.messages().stream().map(Vector.Part::received).toList())
        .rules();
  }

  /** The first rule a collecting run lists (null: accepted). */
  static ProtocolRule firstCollected(Vector v) {
    TransactionVerifier.Verdict verdict =
        TransactionVerifier.verify(v.messages().stream().map(Vector.Part::received).toList());
    for (TransactionVerifier.Checked c : verdict.messages()) {
      if (!c.violations().isEmpty()) {
        return c.violations().get(0).rule();
      }
    }
    return verdict.barrier().filter(b -> !b.isEmpty()).map(b -> b.get(0).rule()).orElse(null);
  }

  /**
   * A consumer that stops at the first broken rule: null when accepted, otherwise the rule it
   * stopped at.
   */
  static ProtocolRule judge(Vector v) {
    try {
      List<com.google.protobuf.Message> passed = new ArrayList<>();
      for (Vector.Part p : v.messages()) {
        passed.add(TrellaraCodec.decode(p.kind(), p.bytes()));
      }
      TransactionVerifier.judgeBarrier(
          passed, io.trellara.protocol.validation.Violations.FAIL_FAST);
      return null;
    } catch (ProtocolViolationException e) {
      return e.rule();
    }
  }

  /**
   * The same verdict reached as a streaming consumer does: each chunk passed as it is decoded
   * (before the manifest is known), then the manifest, then the marker.
   */
  static ProtocolRule judgeStreaming(Vector v) {
    try {
      StreamingBarrierVerifier streaming = null;
      TransactionManifest manifest = null;
      TransactionCommitMarker marker = null;
      for (Vector.Part p : v.messages()) {
        var message = TrellaraCodec.decode(p.kind(), p.bytes());
        if (message instanceof PartitionChunk c) {
          if (streaming == null) {
            streaming = new StreamingBarrierVerifier(c);
          }
          streaming.chunk(c);
        } else if (message instanceof TransactionManifest m) {
          if (manifest == null) {
            manifest = m;
          } else if (marker != null && m.getChecksum() != manifest.getChecksum()) {
            throw new ProtocolViolationException(
                ProtocolRule.MARKER_MANIFEST_CHECKSUM_MISMATCH,
                "manifest",
                "",
                "a second manifest");
          }
        } else if (message instanceof TransactionCommitMarker k && manifest != null) {
          if (marker != null && marker.getChecksum() == k.getChecksum()) {
            continue; // delivered again
          }
          marker = k;
          BarrierVerifier.verifyMarker(
              manifest, k); // the marker binds the manifest before it is trusted
          if (streaming == null) {
            throw new ProtocolViolationException(
                ProtocolRule.EMPTY_BARRIER, "partitions", "", "no chunk");
          }
          streaming.manifest(manifest);
          streaming.marker(k);
        }
      }
      return null;
    } catch (ProtocolViolationException e) {
      return e.rule();
    }
  }
}
