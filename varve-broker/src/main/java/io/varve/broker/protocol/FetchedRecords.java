package io.varve.broker.protocol;

import io.varve.http.view.Message;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.message.FetchResponseData.AbortedTransaction;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The records of one partition of a Fetch answer made in this process, as a read_committed consumer keeps them:
 * control batches and the batches of aborted transactions (the answer's aborted list) are left out, as Kafka's
 * consumer leaves them out. Reads a {@link FileSliceRecords} slice from its segment file with a positional read.
 */
public final class FetchedRecords {
    private FetchedRecords() {}

    /** At most {@code maxRecords} records at or after {@code fromOffset} (a fetch answers whole batches). */
    public static List<Message> decode(
            int partition, BaseRecords records, List<AbortedTransaction> aborted, long fromOffset, int maxRecords) {
        ByteBuffer bytes = bytes(records);
        if (bytes == null) {
            return List.of();
        }
        List<AbortedTransaction> pending = new ArrayList<>(aborted == null ? List.of() : aborted);
        pending.sort(Comparator.comparingLong(AbortedTransaction::firstOffset));
        Set<Long> abortedProducers = new HashSet<>();
        List<Message> out = new ArrayList<>();
        for (RecordBatch batch : MemoryRecords.readableRecords(bytes).batches()) {
            while (!pending.isEmpty() && pending.get(0).firstOffset() <= batch.lastOffset()) {
                abortedProducers.add(pending.remove(0).producerId());
            }
            if (batch.isControlBatch()) {
                if (isAbortMarker(batch)) {
                    abortedProducers.remove(batch.producerId());
                }
                continue;
            }
            if (batch.isTransactional() && abortedProducers.contains(batch.producerId())) {
                continue;
            }
            for (Record r : batch) {
                if (r.offset() < fromOffset) {
                    continue;
                }
                if (out.size() == maxRecords) {
                    return out;
                }
                List<Message.Header> headers = new ArrayList<>(r.headers().length);
                for (Header h : r.headers()) {
                    headers.add(new Message.Header(h.key(), h.value()));
                }
                out.add(new Message(partition, r.offset(), r.timestamp(), array(r.key()), array(r.value()), headers));
            }
        }
        return out;
    }

    /** The last offset of the last batch of {@code records}, or -1 when there is none. */
    public static long lastOffset(BaseRecords records) {
        ByteBuffer bytes = bytes(records);
        long last = -1;
        if (bytes != null) {
            for (RecordBatch batch : MemoryRecords.readableRecords(bytes).batches()) {
                last = batch.lastOffset();
            }
        }
        return last;
    }

    private static boolean isAbortMarker(RecordBatch batch) {
        for (Record r : batch) {
            return r.key() != null && ControlRecordType.parse(r.key().duplicate()) == ControlRecordType.ABORT;
        }
        return false;
    }

    private static byte[] array(ByteBuffer b) {
        if (b == null) {
            return null;
        }
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static ByteBuffer bytes(BaseRecords records) {
        if (records instanceof FileSliceRecords slice) {
            ByteBuffer buffer = ByteBuffer.allocate(slice.sizeBytes());
            try {
                while (buffer.hasRemaining()) {
                    int n = slice.channel().read(buffer, slice.position() + buffer.position());
                    if (n < 0) {
                        break;
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("Reading the fetched records from their segment failed", e);
            }
            return buffer.flip();
        }
        if (records instanceof MemoryRecords memory && memory.sizeInBytes() > 0) {
            return memory.buffer().duplicate();
        }
        return null;
    }
}
