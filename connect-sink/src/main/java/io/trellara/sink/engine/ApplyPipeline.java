package io.trellara.sink.engine;

import com.google.protobuf.Message;
import io.trellara.protocol.BoundaryVocabulary;
import io.trellara.protocol.MessageKind;
import io.trellara.protocol.codec.TrellaraCodec;
import io.trellara.protocol.v1.ManifestBoundaryMode;
import io.trellara.protocol.v1.PartitionChunk;
import io.trellara.protocol.v1.TransactionCommitMarker;
import io.trellara.protocol.v1.TransactionEnvelope;
import io.trellara.protocol.v1.TransactionManifest;
import io.trellara.protocol.validation.BarrierVerifier;
import io.trellara.protocol.validation.ProtocolRule;
import io.trellara.protocol.validation.ProtocolViolationException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The sink task's engine: every record of its input, in order per input partition, to the target.
 *
 * <ul>
 *   <li><b>Chunks</b> (strict chunked or partitioned) are verified and staged in the target at once
 *       ({@link TransactionApplier#stage}), whichever task receives them.</li>
 *   <li><b>Envelopes, manifests and commit markers</b> queue per partition in arrival order. A manifest waits for
 *       the commit marker that follows it and is bound to it ({@link BarrierVerifier#verifyMarker}); the pair is
 *       a barrier. The queue is applied strictly in order: consecutive envelopes as groups, a barrier once every
 *       chunk its manifest lists is staged ({@link TransactionApplier#checkBarrier}, then
 *       {@link TransactionApplier#applyBarrier}). A barrier whose chunks are not all staged yet holds everything
 *       behind it; {@link #poll()} (Connect calls {@code put} again, also with empty batches) looks again.</li>
 *   <li><b>Progress</b>: a partition's durable position is the offset of its first record not yet durable in the
 *       target (a queued envelope or barrier, a manifest waiting for its marker), else the offset after the last
 *       record seen (every chunk up to there is staged). It is recorded in the target with every stage and apply,
 *       and is what Kafka offsets may be committed up to ({@link #durablePositions()}).</li>
 *   <li><b>Failures</b>: a record that fails verification on a partition carrying envelopes or barriers, and a
 *       boundary sequence error (a marker that does not bind its manifest) are
 *       queued as poison at their place: everything before them is applied, then the poison is thrown, and
 *       nothing after it on that partition is looked at (it is re-read from the target's progress after a
 *       restart). A lane chunk that fails verification stops the task after the records before it.</li>
 * </ul>
 *
 * <p>Not thread-safe (the task thread), except the metric getters.
 */
public final class ApplyPipeline implements AutoCloseable {
    /** A partition is paused when this many transactions queue behind a waiting barrier... */
    public static final int DEFAULT_MAX_QUEUED_TRANSACTIONS = 1_000;
    /** ...or when the queued records hold this many bytes. */
    public static final long DEFAULT_MAX_QUEUED_BYTES = 64L << 20;
    /** A waiting barrier is looked at again at most this often, unless this task staged a chunk meanwhile. */
    public static final long DEFAULT_RECHECK_MILLIS = 100;
    /** A barrier waiting this long is logged (once). */
    static final long WAIT_LOG_NANOS = 10_000_000_000L;

    private final Target applier;
    private final Listener listener;
    private final int maxQueuedTransactions;
    private final long maxQueuedBytes;
    private final long recheckNanos;
    /** {@code barrier.max.wait.ms} in nanoseconds; 0: wait as long as it takes. */
    private long maxWaitNanos;
    private final Map<TopicPartitionKey, PartitionQueues.PartitionState> partitions = new LinkedHashMap<>();
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ApplyPipeline.class);
    /** Manifests dropped because another transaction followed them instead of their marker. */
    private long orphanManifestsDiscarded;
    /** Bumped whenever this pipeline stages a chunk: a waiting barrier may be complete now. */
    private long stagedGeneration;
    private final Map<TopicPartitionKey, Long> rewinds = new HashMap<>();
    private final BarrierStreams streams;

    private volatile long waitingTransactions;
    private volatile long waitingLanes;
    private volatile long queuedBytes;
    private volatile String boundaryMode = BoundaryVocabulary.STRICT;

    /** Hears about what was applied, after the commit (metrics). */
    public interface Listener {
        default void envelopesApplied(List<SourceTransaction> batch, ApplyResult result) {
        }

        default void barrierApplied(TransactionManifest manifest, BarrierResult result) {
        }
    }

    /**
     * One record of the input: the decoded message (the converter verified it) or its bytes (verified here).
     *
     * @param where the record's place for messages ({@code topic-partition@offset key ...})
     */
    public record Input(TopicPartitionKey partition, long offset, MessageKind kind, byte[] bytes, Message message,
                        String where) {
        public Input {
            Objects.requireNonNull(partition, "partition");
            if ((bytes == null) == (message == null)) {
                throw new IllegalArgumentException("exactly one of bytes and message");
            }
        }

        public static Input decoded(TopicPartitionKey partition, long offset, Message message, String where) {
            return new Input(partition, offset, MessageKind.of(message), null, message, where);
        }

        public static Input raw(TopicPartitionKey partition, long offset, MessageKind kind, byte[] bytes,
                                String where) {
            return new Input(partition, offset, Objects.requireNonNull(kind, "kind"), bytes, null, where);
        }

        Message decode() {
            return message != null ? message : TrellaraCodec.decode(kind, bytes);
        }
    }

    /** A record failed verification: its place, then the rule, the field and the event key. */
    public static final class InputRejectedException extends RuntimeException {
        InputRejectedException(Input in, RuntimeException cause) {
            super(in.where() + ": Trellara message rejected: " + cause.getMessage(), cause);
        }
    }

    public ApplyPipeline(Target applier, Listener listener) {
        this(applier, listener, DEFAULT_MAX_QUEUED_TRANSACTIONS, DEFAULT_MAX_QUEUED_BYTES, DEFAULT_RECHECK_MILLIS);
    }

    public ApplyPipeline(Target applier, Listener listener, int maxQueuedTransactions,
                         long maxQueuedBytes, long recheckMillis) {
        this.applier = Objects.requireNonNull(applier, "applier");
        this.listener = listener == null ? new Listener() { } : listener;
        this.maxQueuedTransactions = maxQueuedTransactions;
        this.maxQueuedBytes = maxQueuedBytes;
        this.recheckNanos = recheckMillis * 1_000_000L;
        this.streams = new BarrierStreams(applier, new BarrierStreams.Host() {
            @Override
            public void poison(PartitionQueues.PartitionState ps, RuntimeException error, long offset) {
                ApplyPipeline.this.poison(ps, error, offset);
            }

            @Override
            public void rewind(PartitionQueues.PartitionState ps, long offset) {
                ps.rewindTo = offset;
                rewinds.put(ps.tp, offset);
            }

            @Override
            public void orphanDiscarded() {
                orphanManifestsDiscarded++;
            }

            @Override
            public void applied(TransactionManifest manifest, BarrierResult result) {
                boundaryMode = BoundaryVocabulary.STRICT_CHUNKED;
                ApplyPipeline.this.listener.barrierApplied(manifest, result);
            }
        });
    }

    /** Fails a barrier that waits longer than {@code maxWait} for its chunks (zero: wait as long as it takes). */
    public ApplyPipeline maxBarrierWait(java.time.Duration maxWait) {
        this.maxWaitNanos = maxWait.toNanos();
        return this;
    }

    // ---- input ------------------------------------------------------------------------------------------

    /**
     * Takes the next records (in order per partition): stages the chunks among them in one target transaction,
     * queues the rest, then applies whatever is ready. Throws {@link InputRejectedException},
     * {@link ProtocolViolationException} or {@link ApplyException} when apply must stop; what precedes the cause
     * is applied (or staged) first.
     */
    public void accept(List<Input> inputs) {
        List<Step> steps = new ArrayList<>(inputs.size());
        Set<TopicPartitionKey> poisonedNow = new HashSet<>();
        RuntimeException stop = null;
        for (Input in : inputs) {
            PartitionQueues.PartitionState ps = state(in.partition());
            if (ps.poisoned || poisonedNow.contains(ps.tp) || rewinding(ps, in.offset())) {
                continue; // re-read from the target's progress after the restart the poison causes
            }
            if (ps.first < 0) {
                ps.first = in.offset();
            }
            Message message;
            try {
                message = in.decode();
                if (message instanceof PartitionChunk c
                        && c.getBoundaryMode() == ManifestBoundaryMode.PARTITIONED_SCALE_MODE) {
                    checkLane(in, c);
                } else {
                    checkStrictPartition(in);
                }
            } catch (ProtocolViolationException | ApplyException e) {
                RuntimeException rejected = e instanceof ApplyException ? e : new InputRejectedException(in, e);
                if (in.kind() == MessageKind.CHUNK && !ps.carriesBoundaries()) {
                    stop = rejected; // a lane: stop after what precedes it
                    break;
                }
                steps.add(new Step(ps, in, null, null, rejected, in.offset()));
                poisonedNow.add(ps.tp);
                continue;
            }
            steps.add(message instanceof PartitionChunk c ? new Step(ps, in, null, c, null, in.offset())
                    : new Step(ps, in, message, null, null, in.offset()));
        }
        steps = assembleWholeBarriers(steps);
        List<Step> segment = new ArrayList<>();
        for (Step step : steps) {
            PartitionQueues.PartitionState ps = step.ps;
            if (ps.poisoned || ps.rewindTo >= 0) {
                continue; // poisoned, or asked to deliver again, earlier in this batch
            }
            if (ps.stream != null && (streams.feed(ps, step) || !streams.abandon(ps, step))) {
                continue;
            }
            if (streams.canOpen(ps, step)) {
                process(segment); // everything before the transaction's first chunk, in order
                segment.clear();
                if (ps.idle() && !ps.poisoned) {
                    streams.open(ps, step);
                    continue;
                }
            }
            segment.add(step);
        }
        process(segment);
        if (stop != null) {
            throw stop;
        }
    }

    /** Stages, queues and applies what does not stream; then applies whatever is ready. */
    private void process(List<Step> steps) {
        List<StagedChunk> chunks = new ArrayList<>();
        for (Step step : steps) {
            if (step.chunk != null) {
                chunks.add(staged(step.in, step.chunk));
            }
        }
        stage(chunks, steps);
        for (Step step : steps) {
            if (step.ps.poisoned) {
                continue; // after a poison: not looked at
            }
            step.ps.seen(step.lastOffset);
            if (step.poison != null) {
                poison(step.ps, step.poison, step.in.offset());
            } else if (step.assembled()) {
                step.ps.boundaries = true;
                step.ps.queue.add(new PartitionQueues.EnvelopeItem((TransactionEnvelope) step.message, step.in.offset(),
                        step.lastOffset, -1, true));
            } else if (step.message != null) {
                enqueue(step.ps, step.in, step.message);
            }
        }
        drainAll();
    }

    /** True while the partition waits for the record it asked to get again; that record ends the wait. */
    private static boolean rewinding(PartitionQueues.PartitionState ps, long offset) {
        if (ps.rewindTo < 0) {
            return false;
        }
        if (offset != ps.rewindTo) {
            return true;
        }
        ps.rewindTo = -1;
        return false;
    }

    /**
     * Offsets the consumer must deliver again from (a streamed transaction rolled back after a transient failure,
     * or to be applied the staged way); the task seeks there. Cleared by the call.
     */
    public Map<TopicPartitionKey, Long> takeRewinds() {
        Map<TopicPartitionKey, Long> out = new HashMap<>(rewinds);
        rewinds.clear();
        return out;
    }

    /** Looks at waiting barriers again (Connect calls {@code put} with an empty batch now and then). */
    public void poll() {
        drainAll();
    }

    /**
     * One record of a batch (or, {@link #assembled()}, a whole strict-chunked barrier: its first chunk's input,
     * its reassembled envelope and its marker's offset).
     */
    record Step(PartitionQueues.PartitionState ps, Input in, Message message, PartitionChunk chunk, RuntimeException poison,
                long lastOffset) {
        boolean assembled() {
            return lastOffset != in.offset();
        }
    }

    /**
     * Replaces every strict-chunked barrier that arrived whole in this batch — its chunks, manifest and marker
     * consecutive on one partition — by its reassembled envelope (see {@link WholeBarrier}): nothing of it is
     * staged, and it applies grouped with the envelopes around it.
     */
    private List<Step> assembleWholeBarriers(List<Step> steps) {
        List<Step> out = new ArrayList<>(steps.size());
        int i = 0;
        while (i < steps.size()) {
            Step first = steps.get(i);
            int j = i;
            while (j < steps.size() && sameTransactionChunk(first, steps.get(j))) {
                j++;
            }
            if (j > i && j + 1 < steps.size() && first.ps.pendingManifest == null
                    && first.chunk.getBoundaryMode() == ManifestBoundaryMode.STRICT_CHUNKED_TRANSACTION_ORDER
                    && steps.get(j).ps == first.ps && steps.get(j + 1).ps == first.ps
                    && steps.get(j).message instanceof TransactionManifest m
                    && steps.get(j + 1).message instanceof TransactionCommitMarker k
                    && m.getTransactionId().equals(first.chunk.getTransactionId())) {
                List<PartitionChunk> chunks = new ArrayList<>(j - i);
                for (int c = i; c < j; c++) {
                    chunks.add(steps.get(c).chunk);
                }
                TransactionEnvelope whole = WholeBarrier.assemble(m, k, chunks);
                if (whole != null) {
                    out.add(new Step(first.ps, first.in, whole, null, null, steps.get(j + 1).in.offset()));
                    i = j + 2;
                    continue;
                }
                // whole in this batch but it does not verify (or is out of order): the staged way names the rule
                first.ps.stageTransaction = new io.trellara.protocol.TransactionBoundaryKey(
                        first.chunk.getSourceId(), first.chunk.getDatabaseId(), first.chunk.getCommitLsn(),
                        first.chunk.getTransactionId());
            }
            int end = Math.max(j, i + 1);
            out.addAll(steps.subList(i, end));
            i = end;
        }
        return out;
    }

    private static boolean sameTransactionChunk(Step first, Step s) {
        return first.chunk != null && s.chunk != null && s.ps == first.ps && s.poison == null
                && s.chunk.getTransactionId().equals(first.chunk.getTransactionId())
                && s.chunk.getCommitLsn().equals(first.chunk.getCommitLsn());
    }

    /**
     * Envelopes, strict chunks, manifests and commit markers belong to the strict topic, whose one partition is
     * what orders them: one on another partition means the topic has several, and commit order cannot hold.
     */
    private static void checkStrictPartition(Input in) {
        if (in.partition().partition() != 0) {
            throw new ApplyException(ApplyException.Reason.BARRIER_SEQUENCE, null, null, in.where() + ": a "
                    + in.kind() + " arrived on partition " + in.partition().partition() + " of "
                    + in.partition().topic() + "; a strict topic must have exactly one partition (commit order"
                    + " holds only within one). Re-create the topic with one partition.");
        }
    }

    private void checkLane(Input in, PartitionChunk c) {
        if (Integer.toUnsignedLong(c.getPartitionId()) != in.partition().partition()) {
            throw new ApplyException(ApplyException.Reason.BARRIER_SEQUENCE, null,
                    c.getSourceId() + ':' + c.getCommitLsn() + ':' + c.getTransactionId(), in.where()
                    + ": a partitioned chunk of lane " + Integer.toUnsignedString(c.getPartitionId())
                    + " arrived on Kafka partition " + in.partition().partition() + "; each lane must be the"
                    + " partition of the same number, or lane order (and the missing-chunk rule) cannot hold");
        }
    }

    private StagedChunk staged(Input in, PartitionChunk c) {
        byte[] bytes = in.bytes();
        if (bytes == null) {
            bytes = c.toByteArray(); // the converter verified the original bytes; these must hash the same
            TrellaraCodec.verifyChecksum(MessageKind.CHUNK, bytes);
        }
        return StagedChunk.of(c, bytes);
    }

    /**
     * Stages the batch's chunks; progress moves with them for every partition that holds nothing undurable
     * before its last chunk of this batch.
     */
    private void stage(List<StagedChunk> chunks, List<Step> steps) {
        if (chunks.isEmpty()) {
            return;
        }
        Map<TopicPartitionKey, Long> positions = new HashMap<>();
        Set<TopicPartitionKey> blocked = new HashSet<>();
        for (Step step : steps) {
            TopicPartitionKey tp = step.ps.tp;
            if (blocked.contains(tp)) {
                continue;
            }
            if (step.message != null || step.poison != null || !step.ps.idle()) {
                blocked.add(tp); // a record before this one is not durable yet
                continue;
            }
            positions.put(tp, step.in.offset() + 1);
        }
        applier.stage(chunks, positions);
        stagedGeneration++;
    }

    private void enqueue(PartitionQueues.PartitionState ps, Input in, Message message) {
        ps.boundaries = true;
        if (message instanceof TransactionEnvelope e) {
            if (ps.pendingManifest != null) {
                discardOrphan(ps, in, "envelope of " + e.getSourceId() + ':' + e.getCommitLsn() + ':'
                        + e.getTransactionId());
            }
            ps.queue.add(new PartitionQueues.EnvelopeItem(e, in.offset(), in.offset(), in.bytes() == null ? -1 : in.bytes().length,
                    false));
        } else if (message instanceof TransactionManifest m) {
            if (ps.pendingManifest != null) {
                TransactionManifest pending = ps.pendingManifest.manifest();
                if (!FlowKey.boundaryKey(pending).equals(FlowKey.boundaryKey(m))) {
                    discardOrphan(ps, in, "manifest of " + key(m));
                }
                // else the same transaction published again (a source restart): the newer manifest replaces it
            }
            ps.pendingManifest = new PartitionQueues.PendingManifest(m, in.offset());
        } else if (message instanceof TransactionCommitMarker k) {
            PartitionQueues.PendingManifest pending = ps.pendingManifest;
            if (pending == null) {
                ps.queue.add(new PartitionQueues.OrphanMarkerItem(k, in));
                return;
            }
            ps.pendingManifest = null;
            try {
                BarrierVerifier.verifyMarker(pending.manifest(), k);
            } catch (ProtocolViolationException e) {
                poison(ps, e, pending.offset());
                return;
            }
            ps.queue.add(new PartitionQueues.BarrierItem(pending.manifest(), pending.offset()));
        } else {
            throw new IllegalStateException("not a Trellara message: " + message.getClass().getName());
        }
    }

    /**
     * A manifest whose commit marker never came, followed by another transaction: the source stopped between the
     * two (a crash) and re-publishes from an earlier point. The lone manifest proves nothing and nothing of its
     * transaction was applied; it is dropped, and the transaction is applied once when it arrives again whole.
     */
    private void discardOrphan(PartitionQueues.PartitionState ps, Input in, String next) {
        PartitionQueues.PendingManifest pending = ps.pendingManifest;
        ps.pendingManifest = null;
        orphanManifestsDiscarded++;
        LOG.warn("Discarding the manifest of {} at {}@{}: its commit marker never arrived ({} is the {});"
                + " a source that stopped between the two re-publishes the transaction whole", key(pending.manifest()),
                ps.tp, pending.offset(), in.where(), next);
    }

    /** Queues {@code error} at {@code offset}: thrown when everything before it is applied. */
    private void poison(PartitionQueues.PartitionState ps, RuntimeException error, long offset) {
        ps.boundaries = true;
        if (ps.pendingManifest != null) { // the partition must be re-read from the manifest on
            offset = Math.min(offset, ps.pendingManifest.offset());
            ps.pendingManifest = null;
        }
        ps.queue.add(new PartitionQueues.PoisonItem(error, offset));
        ps.poisoned = true;
    }

    // ---- apply ------------------------------------------------------------------------------------------

    private void drainAll() {
        try {
            for (PartitionQueues.PartitionState ps : partitions.values()) {
                drain(ps);
            }
        } finally {
            publishGauges();
        }
    }

    private void drain(PartitionQueues.PartitionState ps) {
        while (!ps.queue.isEmpty()) {
            PartitionQueues.Item head = ps.queue.peek();
            if (head instanceof PartitionQueues.EnvelopeItem) {
                applyEnvelopes(ps);
            } else if (head instanceof PartitionQueues.BarrierItem b) {
                if (!applyBarrier(ps, b)) {
                    return; // waiting for chunks
                }
            } else if (head instanceof PartitionQueues.OrphanMarkerItem o) {
                TransactionCommitMarker k = o.marker;
                if (!applier.isApplied(FlowKey.of(k))) {
                    throw new ApplyException(ApplyException.Reason.BARRIER_SEQUENCE, null,
                            k.getSourceId() + ':' + k.getSourceCommitLsn() + ':' + k.getTransactionId(),
                            o.where + ": a commit marker without its manifest (the manifest must immediately precede"
                                    + " it on the same partition); the transaction cannot be proven complete");
                }
                ps.queue.poll(); // a replayed marker of an applied transaction
            } else if (head instanceof PartitionQueues.PoisonItem p) {
                throw p.error;
            }
        }
    }

    private void applyEnvelopes(PartitionQueues.PartitionState ps) {
        List<PartitionQueues.EnvelopeItem> run = new ArrayList<>();
        boolean assembled = false;
        for (PartitionQueues.Item i : ps.queue) {
            if (!(i instanceof PartitionQueues.EnvelopeItem e)) {
                break;
            }
            run.add(e);
            assembled |= e.assembled;
        }
        long after = ps.positionAfter(run.size());
        List<SourceTransaction> batch = new ArrayList<>(run.size());
        for (int i = 0; i < run.size(); i++) {
            PartitionQueues.EnvelopeItem e = run.get(i);
            batch.add(new SourceTransaction(e.envelope, ps.tp, i == run.size() - 1 ? after : e.lastOffset + 1));
        }
        ApplyResult result = applier.apply(batch);
        for (int i = 0; i < run.size(); i++) {
            ps.queue.poll();
        }
        if (assembled) {
            long barriers = run.stream().filter(e -> e.assembled && result.applied().contains(
                    new SourceTransaction(e.envelope, null, -1).key())).count();
            applier.metrics().countBarriers(barriers);
        }
        boundaryMode = assembled ? BoundaryVocabulary.STRICT_CHUNKED : BoundaryVocabulary.STRICT;
        listener.envelopesApplied(batch, result);
    }

    /** Applies the barrier at the head of the queue when it is ready; false when it waits. */
    private boolean applyBarrier(PartitionQueues.PartitionState ps, PartitionQueues.BarrierItem b) {
        long now = System.nanoTime();
        if (b.verdict != null && b.checkedGeneration == stagedGeneration && now - b.checkedAt < recheckNanos) {
            return false;
        }
        BarrierState.Verdict v = applier.checkBarrier(b.manifest); // throws when a chunk is missing for good
        if (v.kind() == BarrierState.Kind.WAITING) {
            b.verdict = v;
            b.checkedAt = now;
            b.checkedGeneration = stagedGeneration;
            checkWait(ps, b, v, now);
            return false;
        }
        BarrierResult result = applier.applyBarrier(b.manifest, Map.of(ps.tp, ps.positionAfter(1)));
        ps.queue.poll();
        boundaryMode = BoundaryVocabulary.of(b.manifest.getBoundaryMode());
        listener.barrierApplied(b.manifest, result);
        return true;
    }

    /**
     * A barrier may wait for chunks of lanes other tasks hold; it is logged once it has waited
     * {@link #WAIT_LOG_NANOS}, and, when {@code barrier.max.wait.ms} is set, fails closed as {@code MISSING_CHUNK}
     * naming the chunks it still lacks (a chunk lost on a lane that never carries another transaction would
     * otherwise be waited for forever).
     */
    private void checkWait(PartitionQueues.PartitionState ps, PartitionQueues.BarrierItem b, BarrierState.Verdict v,
                           long now) {
        if (b.waitingSince == 0) {
            b.waitingSince = now;
        }
        long waited = now - b.waitingSince;
        if (!b.waitLogged && waited >= WAIT_LOG_NANOS) {
            b.waitLogged = true;
            LOG.info("The barrier of {} at {}@{} has waited {} ms for {} chunk(s) on lanes {}", key(b.manifest), ps.tp,
                    b.firstOffset(), waited / 1_000_000, v.absent().size(), lanes(v));
        }
        if (maxWaitNanos > 0 && waited >= maxWaitNanos) {
            throw new ProtocolViolationException(ProtocolRule.MISSING_CHUNK, "partitions", key(b.manifest),
                    "the barrier waited " + waited / 1_000_000 + " ms (barrier.max.wait.ms " + maxWaitNanos / 1_000_000
                            + ") for " + v.absent().size() + " chunk(s) of lanes " + lanes(v) + " that never arrived");
        }
    }

    private static java.util.Set<Long> lanes(BarrierState.Verdict v) {
        java.util.Set<Long> lanes = new java.util.TreeSet<>();
        for (io.trellara.protocol.v1.ManifestPartition p : v.absent()) {
            lanes.add(Integer.toUnsignedLong(p.getId()));
        }
        return lanes;
    }

    private void publishGauges() {
        long waiting = 0;
        long lanes = 0;
        long bytes = 0;
        for (PartitionQueues.PartitionState ps : partitions.values()) {
            long partitionBytes = 0;
            for (PartitionQueues.Item i : ps.queue) {
                if (i instanceof PartitionQueues.BarrierItem b) {
                    waiting++;
                    if (b.verdict != null && b == ps.queue.peek()) {
                        lanes += b.verdict.absentLanes();
                    }
                }
                partitionBytes += i.bytes();
            }
            if (ps.pendingManifest != null || ps.stream != null) {
                waiting++; // a manifest waiting for its marker, or a transaction streaming towards it
            }
            if (ps.pendingManifest != null) {
                partitionBytes += ps.pendingManifest.manifest().getSerializedSize();
            }
            ps.queuedBytes = partitionBytes;
            bytes += partitionBytes;
        }
        waitingTransactions = waiting;
        waitingLanes = lanes;
        queuedBytes = bytes;
    }

    // ---- what the task needs ----------------------------------------------------------------------------

    /**
     * Per partition seen since it was opened: the offset up to which every record is durable in the target
     * (applied, or staged). Kafka offsets may be committed up to there, never further.
     */
    public Map<TopicPartitionKey, Long> durablePositions() {
        Map<TopicPartitionKey, Long> out = new HashMap<>();
        for (PartitionQueues.PartitionState ps : partitions.values()) {
            long p = ps.durable();
            if (p >= 0) {
                out.put(ps.tp, p);
            }
        }
        return out;
    }

    /** Per partition seen since it was opened: the offset of the first record taken from it. */
    public Map<TopicPartitionKey, Long> firstOffsets() {
        Map<TopicPartitionKey, Long> out = new HashMap<>();
        for (PartitionQueues.PartitionState ps : partitions.values()) {
            if (ps.first >= 0) {
                out.put(ps.tp, ps.first);
            }
        }
        return out;
    }

    /** Partitions that should not deliver more records for now: a long queue behind a barrier, or a poison. */
    public Set<TopicPartitionKey> backlogged() {
        Set<TopicPartitionKey> out = new HashSet<>();
        for (PartitionQueues.PartitionState ps : partitions.values()) {
            if (ps.poisoned || ps.queue.size() >= maxQueuedTransactions || ps.queuedBytes >= maxQueuedBytes) {
                out.add(ps.tp);
            }
        }
        return out;
    }

    /** True when a barrier waits for chunks: {@link #poll()} soon. */
    public boolean waiting() {
        for (PartitionQueues.PartitionState ps : partitions.values()) {
            if (ps.queue.peek() instanceof PartitionQueues.BarrierItem) {
                return true;
            }
        }
        return false;
    }

    /** Forget everything about these partitions (newly assigned: they resume from the target's progress). */
    public void open(Collection<TopicPartitionKey> assigned) {
        for (TopicPartitionKey tp : assigned) {
            forget(tp);
        }
        publishGauges();
    }

    /** Drop what is queued for these partitions (revoked: their next owner re-reads it from the target's progress). */
    public void close(Collection<TopicPartitionKey> revoked) {
        for (TopicPartitionKey tp : revoked) {
            forget(tp);
        }
        publishGauges();
    }

    /** Manifests dropped because another transaction followed them instead of their commit marker. */
    public long orphanManifestsDiscarded() {
        return orphanManifestsDiscarded;
    }

    /** Transactions whose barrier is queued or whose manifest waits for its marker. */
    public long transactionsWaitingAtBarrier() {
        return waitingTransactions;
    }

    /** Lanes whose chunks the barrier at the head of a queue still lacks (as of its last check). */
    public long waitingLanes() {
        return waitingLanes;
    }

    /** Bytes of the records queued in memory behind barriers. */
    public long queuedBytes() {
        return queuedBytes;
    }

    /** The boundary mode of the last transaction applied (wire vocabulary) (envelopes: strict_transaction_order). */
    public String boundaryMode() {
        return boundaryMode;
    }

    @Override
    public void close() {
        for (TopicPartitionKey tp : new ArrayList<>(partitions.keySet())) {
            forget(tp);
        }
        publishGauges();
    }

    /** Drops a partition's state; a transaction streaming from it is rolled back (nothing of it is visible). */
    private void forget(TopicPartitionKey tp) {
        PartitionQueues.PartitionState ps = partitions.remove(tp);
        if (ps != null && ps.stream != null) {
            LOG.info("Rolling back {} (streamed from {}): the partition is no longer this task's", ps.stream.key().display(), tp);
            ps.stream.rollback();
        }
        rewinds.remove(tp);
    }

    private PartitionQueues.PartitionState state(TopicPartitionKey tp) {
        return partitions.computeIfAbsent(tp, PartitionQueues.PartitionState::new);
    }

    private static String key(TransactionManifest m) {
        return m.getSourceId() + ':' + m.getSourceCommitLsn() + ':' + m.getTransactionId();
    }
}
