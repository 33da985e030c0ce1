package io.varve.storage.records;

import java.nio.ByteBuffer;
import java.util.OptionalLong;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecords.RecordFilter.BatchRetention;
import org.apache.kafka.common.record.internal.MemoryRecords.RecordFilter.BatchRetentionResult;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.utils.internals.BufferSupplier;

/**
 * Rewrites stored batches keeping only the records a cleaner's {@link Rules} retain. A batch whose
 * records all stay is copied byte for byte; otherwise it is re-encoded with its producer id, epoch, base
 * sequence, base and last offset, partition leader epoch, timestamp type and compression codec (records
 * keep their offsets, so gaps appear). A batch left without records is dropped unless the rules keep it
 * empty. Tombstones (a key and no value) follow Kafka's delete horizon: the first rewrite that keeps one
 * stamps its batch with {@code now + delete.retention.ms}; a rewrite after that time drops it.
 * One instance serves one cleaning pass on one thread; {@link #close()} releases its buffers.
 */
public final class CompactionFilter implements AutoCloseable {

    /** What transactions make of a batch, before its records are looked at. */
    public enum TxnFate {
        /** Not decided by transactions: its records go through {@link Rules#isLatest}; a marker stays. */
        NONE,
        /** A data batch of an aborted transaction: every record goes (the batch too unless kept empty). */
        ABORTED,
        /**
         * A marker whose transaction has no data left: the first rewrite stamps it with now + delete.retention.ms
         * (its delete horizon), a rewrite after that time drops it, as tombstones go.
         */
        EMPTY_TXN_MARKER
    }

    /** Which records and batches survive; implemented by the cleaner. */
    public interface Rules {
        /** Batches copied as they are, records and all. */
        boolean keepUntouched(BatchInfo batch);

        /** Called once per batch not kept untouched, in log order, before its records. */
        default TxnFate txnFate(BatchInfo batch) {
            return TxnFate.NONE;
        }

        /** Batches kept as an empty header when no record survives (the last batch of a live producer). */
        boolean keepWhenEmpty(BatchInfo batch);

        /** True when the record at {@code offset} is the newest of its key the cleaner knows of. */
        boolean isLatest(ByteBuffer key, long offset);
    }

    /**
     * What one {@link #filter} call produced.
     *
     * @param output                     the kept batches, position 0 to limit; pass it back as the next destination
     * @param earliestTombstoneHorizonMs the earliest delete horizon of a tombstone or marker kept, or Long.MAX_VALUE
     */
    public record Result(ByteBuffer output, int recordsRead, int recordsKept, long earliestTombstoneHorizonMs) {}

    private final Rules rules;
    private final long keepAllFromOffset;
    private final long nowMs;
    private final long deleteRetentionMs;
    private final BufferSupplier decompressionBuffers = BufferSupplier.create();

    /**
     * @param keepAllFromOffset records at or past it are kept whatever the rules say: the cleaner's offset
     *                          map ends there, so it cannot tell whether they are the latest of their key
     */
    public CompactionFilter(Rules rules, long keepAllFromOffset, long nowMs, long deleteRetentionMs) {
        this.rules = rules;
        this.keepAllFromOffset = keepAllFromOffset;
        this.nowMs = nowMs;
        // now + delete.retention.ms must not overflow into the past
        this.deleteRetentionMs = Math.min(deleteRetentionMs, Long.MAX_VALUE - Math.max(nowMs, 0));
    }

    /**
     * Filters the whole batches from position to limit of {@code batches} into {@code destination} (cleared
     * first; a larger buffer is allocated when it is too small).
     */
    public Result filter(ByteBuffer batches, ByteBuffer destination) {
        Pass pass = new Pass(
                destination.capacity() >= batches.remaining()
                        ? destination.clear()
                        : ByteBuffer.allocate(Math.max(batches.remaining(), 2 * destination.capacity())));
        StoredBatches.forEach(batches, (batch, index) -> pass.filter(batch));
        return new Result(pass.out.flip(), pass.recordsRead, pass.recordsKept, pass.earliestHorizonMs);
    }

    @Override
    public void close() {
        decompressionBuffers.close();
    }

    /** The state of one {@link #filter} call; doubles as kafka-clients' record filter for the current batch. */
    private final class Pass extends MemoryRecords.RecordFilter {
        private ByteBuffer out;
        private BatchInfo current;
        private TxnFate fate;
        /** Set by {@link #checkBatchRetention}: every record of the current batch goes. */
        private boolean discardRecords;

        private int recordsRead;
        private int recordsKept;
        private long earliestHorizonMs = Long.MAX_VALUE;

        Pass(ByteBuffer out) {
            super(nowMs, CompactionFilter.this.deleteRetentionMs);
            this.out = out;
        }

        void filter(StoredBatches.Batch batch) {
            current = batch.info();
            if (rules.keepUntouched(current)) {
                ensureRoom(batch.bytes().remaining());
                out.put(batch.bytes().duplicate());
                recordsRead += current.recordCount();
                recordsKept += current.recordCount();
                return;
            }
            fate = rules.txnFate(current);
            // No cap on a decoded record beyond the JVM's array limit, as before 4.4 added the argument: the
            // batch passed validation at append, and a record larger than that could not be rewritten anyway.
            MemoryRecords.FilterResult result = MemoryRecords.readableRecords(batch.bytes())
                    .filterTo(this, out, decompressionBuffers, Records.SOFT_MAX_ARRAY_LENGTH);
            out = result.outputBuffer(); // a larger copy when the rewrite outgrew the buffer
            recordsRead += result.messagesRead();
            recordsKept += result.messagesRetained();
        }

        private void ensureRoom(int bytes) {
            if (out.remaining() < bytes) {
                ByteBuffer larger = ByteBuffer.allocate(Math.max(out.capacity() * 2, out.position() + bytes));
                out = larger.put(out.flip());
            }
        }

        @Override
        protected BatchRetentionResult checkBatchRetention(RecordBatch batch) {
            boolean retainEmpty = rules.keepWhenEmpty(current);
            BatchRetention whenEmpty = retainEmpty ? BatchRetention.RETAIN_EMPTY : BatchRetention.DELETE_EMPTY;
            BatchRetention whenDiscarded = retainEmpty ? BatchRetention.RETAIN_EMPTY : BatchRetention.DELETE;
            discardRecords = false;
            if (fate == TxnFate.ABORTED) {
                discardRecords = true;
                return new BatchRetentionResult(whenDiscarded, false);
            }
            if (fate == TxnFate.EMPTY_TXN_MARKER) {
                OptionalLong horizon = batch.deleteHorizonMs();
                if (horizon.isPresent() && horizon.getAsLong() <= nowMs) {
                    discardRecords = true;
                    return new BatchRetentionResult(whenDiscarded, true);
                }
                earliestHorizonMs = Math.min(
                        earliestHorizonMs, horizon.isPresent() ? horizon.getAsLong() : nowMs + deleteRetentionMs);
                return new BatchRetentionResult(whenEmpty, true); // kafka-clients stamps the horizon when absent
            }
            return new BatchRetentionResult(whenEmpty, false);
        }

        @Override
        protected boolean shouldRetainRecord(RecordBatch batch, Record record) {
            if (discardRecords) {
                return false;
            }
            if (batch.isControlBatch()) {
                return true; // a marker stays unless its batch was discarded whole
            }
            long offset = record.offset();
            boolean keep;
            if (offset >= keepAllFromOffset) {
                keep = true;
            } else if (!record.hasKey() || !rules.isLatest(record.key(), offset)) {
                keep = false; // an older value of its key, or no key at all: nothing in a compacted log can refer to it
            } else {
                keep = record.hasValue()
                        || batch.deleteHorizonMs().isEmpty()
                        || nowMs < batch.deleteHorizonMs().getAsLong();
            }
            if (keep && !record.hasValue()) {
                OptionalLong horizon = batch.deleteHorizonMs();
                earliestHorizonMs = Math.min(
                        earliestHorizonMs, horizon.isPresent() ? horizon.getAsLong() : nowMs + deleteRetentionMs);
            }
            return keep;
        }
    }
}
