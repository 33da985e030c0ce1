package io.varve.broker.protocol;

import java.nio.ByteBuffer;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;

/**
 * The keys and values of a produce request's records, decompressed, for checks that must look into each record
 * (broker-side schema validation). The buffer itself is not consumed.
 *
 * <p>Uncompressed v2 batches, what producers of small records mostly send, are walked here without allocating per
 * record: each record's length says where the next begins, so only its key and value positions are decoded and its
 * headers are skipped. Compressed batches, and anything this walk cannot make sense of, go through kafka-clients'
 * record reader, which decompresses and throws on a malformed batch as before (the produce path answers that).
 */
public final class ProducedRecords {
    /**
     * Receives each record; {@code key} and {@code value} are null when absent. Returns false to stop. The buffers are
     * views valid only during the call: reused for the next record, so a visitor must not keep them.
     */
    public interface Visitor {
        boolean record(int index, ByteBuffer key, ByteBuffer value);
    }

    /** The v2 batch header: base offset 8, length 4, leader epoch 4, magic 1, crc 4, attributes 2 … count 4. */
    private static final int LENGTH_OFFSET = 8;

    private static final int MAGIC_OFFSET = 16;
    private static final int ATTRIBUTES_OFFSET = 21;
    private static final int COUNT_OFFSET = 57;
    private static final int HEADER_BYTES = 61;
    private static final int LOG_OVERHEAD = 12;
    private static final int COMPRESSION_MASK = 0x07;
    private static final int CONTROL_FLAG = 0x20;

    private ProducedRecords() {}

    public static void forEach(ByteBuffer records, Visitor visitor) {
        Walk walk = new Walk(records);
        int pos = records.position();
        int end = records.limit();
        while (pos < end) {
            int batchEnd = walk.uncompressedBatchEnd(pos, end);
            if (batchEnd < 0) {
                // compressed, an old magic, or not well formed: the rest the slow way (it throws on corrupt input)
                slowly(records.duplicate().position(pos).limit(end), walk, visitor);
                return;
            }
            if (!walk.records(pos, batchEnd, visitor)) {
                return;
            }
            pos = batchEnd;
        }
    }

    private static void slowly(ByteBuffer records, Walk walk, Visitor visitor) {
        for (MutableRecordBatch batch :
                MemoryRecords.readableRecords(records.slice()).batches()) {
            if (batch.isControlBatch()) {
                continue;
            }
            for (Record r : batch) {
                if (!visitor.record(walk.index++, r.hasKey() ? r.key() : null, r.hasValue() ? r.value() : null)) {
                    return;
                }
            }
        }
    }

    /** One walk over a request's records: the index across batches, a cursor, and the two reused views. */
    private static final class Walk {
        private final ByteBuffer buffer;
        private final ByteBuffer key;
        private final ByteBuffer value;
        int index;
        private int cursor;

        Walk(ByteBuffer buffer) {
            this.buffer = buffer;
            this.key = buffer.duplicate();
            this.value = buffer.duplicate();
        }

        /**
         * Where the uncompressed, non-control v2 batch at {@code pos} ends; {@code -1} when it is anything else or its
         * header does not fit (the slow path decides). A control batch is skipped by returning its end with no record.
         */
        int uncompressedBatchEnd(int pos, int end) {
            if (end - pos < HEADER_BYTES || buffer.get(pos + MAGIC_OFFSET) != 2) {
                return -1;
            }
            int length = buffer.getInt(pos + LENGTH_OFFSET);
            if (length < HEADER_BYTES - LOG_OVERHEAD || length > end - pos - LOG_OVERHEAD) {
                return -1;
            }
            int attributes = buffer.getShort(pos + ATTRIBUTES_OFFSET);
            if ((attributes & COMPRESSION_MASK) != 0) {
                return -1;
            }
            return pos + LOG_OVERHEAD + length;
        }

        /** Visits the records of the batch at {@code pos}; false when the visitor stopped. */
        boolean records(int pos, int batchEnd, Visitor visitor) {
            if ((buffer.getShort(pos + ATTRIBUTES_OFFSET) & CONTROL_FLAG) != 0) {
                return true;
            }
            int count = buffer.getInt(pos + COUNT_OFFSET);
            int start = index;
            cursor = pos + HEADER_BYTES;
            for (int i = 0; i < count; i++) {
                int length = varint(batchEnd);
                int recordEnd = cursor + length;
                if (length <= 0 || recordEnd > batchEnd) {
                    return redo(pos, batchEnd, start, visitor);
                }
                cursor++; // attributes
                varlong(recordEnd); // timestamp delta
                varint(recordEnd); // offset delta
                int keyLength = varint(recordEnd);
                int keyStart = cursor;
                if (keyLength > 0) {
                    cursor += keyLength;
                }
                int valueLength = cursor < recordEnd ? varint(recordEnd) : -2;
                int valueStart = cursor;
                if (keyLength < -1
                        || valueLength < -1
                        || keyStart + Math.max(0, keyLength) > recordEnd
                        || valueStart + Math.max(0, valueLength) > recordEnd) {
                    return redo(pos, batchEnd, start, visitor);
                }
                ByteBuffer k = keyLength < 0 ? null : view(key, keyStart, keyLength);
                ByteBuffer v = valueLength < 0 ? null : view(value, valueStart, valueLength);
                if (!visitor.record(index++, k, v)) {
                    return false;
                }
                cursor = recordEnd;
            }
            return true;
        }

        /**
         * A record this walk could not read: the batch again through kafka-clients, which throws on what is corrupt.
         * Records visited before are not visited twice: the index restarts where the batch began and only records
         * after those already seen are passed on.
         */
        private boolean redo(int pos, int batchEnd, int start, Visitor visitor) {
            int seen = index - start;
            index = start;
            ByteBuffer batch = buffer.duplicate().position(pos).limit(batchEnd).slice();
            int[] skipped = {0};
            boolean[] stopped = {false};
            slowly(batch, this, (i, k, v) -> {
                if (skipped[0] < seen) {
                    skipped[0]++;
                    return true;
                }
                if (!visitor.record(i, k, v)) {
                    stopped[0] = true;
                    return false;
                }
                return true;
            });
            return !stopped[0];
        }

        private static ByteBuffer view(ByteBuffer view, int start, int length) {
            view.clear();
            view.position(start).limit(start + length);
            return view;
        }

        /** A zig-zag varint at the cursor, which it moves past; -2 (never a valid length) past {@code limit}. */
        private int varint(int limit) {
            int raw = 0;
            for (int shift = 0; shift < 32; shift += 7) {
                if (cursor >= limit) {
                    return -2;
                }
                byte b = buffer.get(cursor++);
                raw |= (b & 0x7f) << shift;
                if (b >= 0) {
                    return (raw >>> 1) ^ -(raw & 1);
                }
            }
            return -2;
        }

        /** A zig-zag varlong at the cursor, skipped (its value is not needed). */
        private void varlong(int limit) {
            for (int i = 0; i < 10 && cursor < limit; i++) {
                if (buffer.get(cursor++) >= 0) {
                    return;
                }
            }
        }
    }
}
