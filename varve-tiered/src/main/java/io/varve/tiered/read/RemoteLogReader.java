package io.varve.tiered.read;

import io.varve.storage.batch.BatchHeader;
import io.varve.storage.batch.RecordBatchV2;
import io.varve.storage.segment.AbortedTxn;
import io.varve.storage.segment.TimeIndex;
import io.varve.storage.segment.TransactionIndex;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.metadata.TopicIdPartition;
import io.varve.tiered.spi.RemoteStorageException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;

/**
 * Reads record batches of remote segments: fetches (offset → segment → position via the segment's offset index →
 * whole batches from there), and the time lookups of ListOffsets. Blocking: it runs on the reader pool of {@link
 * RemoteReadService}, never on a request thread. Thread-safe.
 *
 * <p>Batches are served whole, as the local log serves them: the answer starts with the batch holding the fetch offset
 * and ends with the last batch that fits the byte limit (the first one always under {@code minOneBatch}); a read
 * never crosses a segment end. Every header is checked against the segment's metadata, so bytes that do not parse as
 * the batches the metadata promises fail the read instead of reaching a client.
 */
public final class RemoteLogReader {

    private final RemoteSegmentSource segments;
    private final SegmentBytes bytes;
    private final RemoteIndexCache indexes;
    private final int readAheadChunks;
    /** Partitions whose last read position is remembered, to tell sequential readers from seeks. */
    private static final int MAX_TRACKED_PARTITIONS = 10_000;

    private final SequentialReads sequentialReads = new SequentialReads(MAX_TRACKED_PARTITIONS);

    RemoteLogReader(RemoteSegmentSource segments, SegmentBytes bytes, RemoteIndexCache indexes, int readAheadChunks) {
        if (readAheadChunks < 0) {
            throw new IllegalArgumentException("negative read-ahead " + readAheadChunks);
        }
        this.segments = Objects.requireNonNull(segments, "segments");
        this.bytes = Objects.requireNonNull(bytes, "bytes");
        this.indexes = Objects.requireNonNull(indexes, "indexes");
        this.readAheadChunks = readAheadChunks;
    }

    /**
     * Whole batches from the one holding {@code request.fetchOffset()}.
     *
     * @throws OffsetOutOfRangeException no readable remote segment holds the offset or any later one
     */
    public RemoteFetchResult read(RemoteFetchRequest request) throws RemoteStorageException {
        TopicIdPartition partition = request.partition();
        long fetchOffset = Math.max(request.fetchOffset(), request.logStartOffset());
        if (request.fetchOffset() < request.logStartOffset()) {
            throw new OffsetOutOfRangeException(partition + ": fetch offset " + request.fetchOffset()
                    + " is below the log start offset " + request.logStartOffset());
        }
        RemoteSegmentMetadata segment = segmentFor(request, fetchOffset);
        startLikelyChunk(segment, fetchOffset);
        List<RemoteSegmentMetadata> all = null;
        // bounded: each pass moves to a segment starting after the previous one ends
        while (true) {
            long position = firstBatchAtOrAfter(segment, fetchOffset);
            if (position >= 0) {
                return readFrom(segment, position, request.maxBytes(), request.minOneBatch());
            }
            // the segment's batches all end below the offset (compaction can leave such a tail): go on to the next
            if (all == null) {
                all = segments.copiedSegments(partition);
            }
            Optional<RemoteSegmentMetadata> next = nextAfter(all, segment.endOffset());
            if (next.isEmpty()) {
                throw notRemote(partition, request.fetchOffset());
            }
            segment = next.get();
        }
    }

    /**
     * The aborted transactions a read_committed reader of [{@code fetchOffset}, {@code upperBoundOffset}) must skip,
     * from the remote segments' transaction indexes: from the segment holding {@code fetchOffset} on, in offset
     * order, until an entry shows that no later abort can overlap the range ({@code complete}). An ABORT marker, and
     * so its entry, may sit in a later segment than the data; when the remote segments end incomplete, the caller
     * goes on in the local log.
     */
    public TransactionIndex.Collected abortedTransactions(
            TopicIdPartition partition, long fetchOffset, long upperBoundOffset) throws RemoteStorageException {
        List<AbortedTxn> found = new ArrayList<>();
        if (upperBoundOffset <= fetchOffset) {
            return new TransactionIndex.Collected(found, true);
        }
        // bounded by the partition's copied segments
        for (RemoteSegmentMetadata segment : segments.copiedSegments(partition)) {
            if (segment.endOffset() < fetchOffset) {
                continue;
            }
            TransactionIndex.Collected collected =
                    indexes.withTxnIndex(segment, index -> index.collect(fetchOffset, upperBoundOffset));
            found.addAll(collected.aborted());
            if (collected.complete()) {
                return new TransactionIndex.Collected(found, true);
            }
        }
        return new TransactionIndex.Collected(found, false);
    }

    /**
     * The first batch, in offset order, whose max timestamp is at or after {@code timestampMs} among remote batches
     * ending at or after {@code logStartOffset} and starting below {@code endOffsetExclusive} (the local log start:
     * what lies above is searched locally).
     */
    public Optional<RemoteBatch> firstBatchWithTimestampAtLeast(
            TopicIdPartition partition, long timestampMs, long logStartOffset, long endOffsetExclusive)
            throws RemoteStorageException {
        for (RemoteSegmentMetadata segment : segments.copiedSegments(partition)) {
            if (segment.startOffset() >= endOffsetExclusive) {
                break;
            }
            if (segment.endOffset() < logStartOffset || segment.maxTimestampMs() < timestampMs) {
                continue;
            }
            // every batch before a time-index entry (T, o) has a max timestamp below T: start at the last entry below
            // the target, then scan
            TimeIndex.Entry below = indexes.withTimeIndex(segment, index -> index.lookup(timestampMs - 1));
            long fromOffset = Math.max(logStartOffset, below == null ? segment.startOffset() : below.offset());
            long position = Math.max(0, positionAtOrBefore(segment, fromOffset));
            for (BatchHeader header = headerAt(segment, position);
                    header != null;
                    header = headerAt(segment, header.endPosition())) {
                if (header.baseOffset() >= endOffsetExclusive) {
                    return Optional.empty();
                }
                if (header.lastOffset() >= logStartOffset && header.maxTimestamp() >= timestampMs) {
                    return Optional.of(batch(segment, header));
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The batch holding the largest timestamp (the first of equals) among remote batches ending at or after {@code
     * logStartOffset} in segments starting below {@code endOffsetExclusive}.
     */
    public Optional<RemoteBatch> maxTimestampBatch(
            TopicIdPartition partition, long logStartOffset, long endOffsetExclusive) throws RemoteStorageException {
        RemoteSegmentMetadata best = null;
        for (RemoteSegmentMetadata segment : segments.copiedSegments(partition)) {
            if (segment.startOffset() >= endOffsetExclusive) {
                break;
            }
            if (segment.endOffset() >= logStartOffset
                    && (best == null || segment.maxTimestampMs() > best.maxTimestampMs())) {
                best = segment;
            }
        }
        if (best == null) {
            return Optional.empty();
        }
        // a rolled segment's last time-index entry names the batch where its max timestamp was reached
        RemoteSegmentMetadata segment = best;
        TimeIndex.Entry last = indexes.withTimeIndex(segment, TimeIndex::lastEntry);
        if (last != null && last.offset() >= logStartOffset) {
            long position = firstBatchAtOrAfter(segment, last.offset());
            BatchHeader header = position < 0 ? null : headerAt(segment, position);
            if (header != null && header.maxTimestamp() == segment.maxTimestampMs()) {
                return Optional.of(batch(segment, header));
            }
        }
        // the index cannot say (the batch lies below the log start offset): scan the live part of the segment
        BatchHeader max = null;
        for (BatchHeader header = headerAt(segment, Math.max(0, positionAtOrBefore(segment, logStartOffset)));
                header != null;
                header = headerAt(segment, header.endPosition())) {
            if (header.lastOffset() >= logStartOffset && (max == null || header.maxTimestamp() > max.maxTimestamp())) {
                max = header;
            }
        }
        return max == null ? Optional.empty() : Optional.of(batch(segment, max));
    }

    private RemoteSegmentMetadata segmentFor(RemoteFetchRequest request, long offset) {
        TopicIdPartition partition = request.partition();
        Optional<RemoteSegmentMetadata> found = Optional.empty();
        if (request.leaderEpoch().isPresent()) {
            found = segments.segmentForOffset(partition, request.leaderEpoch().getAsInt(), offset);
        }
        if (found.isEmpty()) {
            found = segments.segmentForOffset(partition, offset);
        }
        if (found.isEmpty()) {
            // a gap (e.g. below the first copied segment after DeleteRecords): the next segment holds the next offsets
            found = nextAfter(segments.copiedSegments(partition), offset - 1);
        }
        return found.orElseThrow(() -> notRemote(partition, request.fetchOffset()));
    }

    private static Optional<RemoteSegmentMetadata> nextAfter(List<RemoteSegmentMetadata> ordered, long offset) {
        for (RemoteSegmentMetadata m : ordered) {
            if (m.startOffset() > offset) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    private static OffsetOutOfRangeException notRemote(TopicIdPartition partition, long offset) {
        return new OffsetOutOfRangeException(partition + ": no remote segment holds offset " + offset);
    }

    /** Position of the first batch whose last offset is at or after {@code offset}; -1 when the segment has none. */
    private long firstBatchAtOrAfter(RemoteSegmentMetadata segment, long offset) throws RemoteStorageException {
        for (BatchHeader header = headerAt(segment, Math.max(0, positionAtOrBefore(segment, offset)));
                header != null;
                header = headerAt(segment, header.endPosition())) {
            if (header.lastOffset() >= offset) {
                return header.position();
            }
        }
        return -1;
    }

    /** A batch boundary at or before the batch holding {@code offset}, from the offset index. */
    private long positionAtOrBefore(RemoteSegmentMetadata segment, long offset) throws RemoteStorageException {
        if (offset <= segment.startOffset()) {
            return 0;
        }
        return indexes.withOffsetIndex(segment, index -> index.lookup(offset));
    }

    /**
     * A cold segment costs two round trips in a row, its offset index and then the chunk the index points to. When the
     * index is not cached yet, start the chunk where the offset probably lies (offsets spread evenly over the bytes)
     * at the same time: a consumer starting at a segment's first offset, or reading records of similar sizes, finds
     * it loading.
     */
    private void startLikelyChunk(RemoteSegmentMetadata segment, long offset) {
        if (indexes.hasOffsetIndex(segment)) {
            return;
        }
        long span = segment.endOffset() - segment.startOffset() + 1;
        long guess = (long) ((double) (offset - segment.startOffset()) / span * segment.segmentSizeBytes());
        bytes.prefetchBeforeIndex(segment, (int) (Math.max(0, guess) / bytes.chunkBytes()));
    }

    private RemoteFetchResult readFrom(RemoteSegmentMetadata segment, long start, int maxBytes, boolean minOneBatch)
            throws RemoteStorageException {
        // the answer is at most maxBytes from here (or one larger batch): get that range going before parsing headers
        int window = (int) Math.min(segment.segmentSizeBytes() - start, maxBytes);
        bytes.prepare(segment, start, window);
        long end = start;
        long nextOffset = -1;
        for (BatchHeader header = headerAt(segment, start); header != null; header = headerAt(segment, end)) {
            long total = end - start;
            if (total + header.sizeBytes() > maxBytes && !(total == 0 && minOneBatch)) {
                break;
            }
            end = header.endPosition();
            nextOffset = header.nextOffset();
        }
        int size = (int) (end - start);
        if (size > window) {
            bytes.prepare(segment, start + window, size - window); // one batch larger than maxBytes (minOneBatch)
        }
        RemoteRecords records = bytes.records(segment, start, size);
        boolean sequential = sequentialReads.read(segment, start, end);
        readAhead(segment, size == 0 ? start : end, sequential ? readAheadChunks : Math.min(1, readAheadChunks));
        return new RemoteFetchResult(records, segment, nextOffset);
    }

    /**
     * A consumer's next read starts at {@code nextPosition}: have the chunk holding it and the {@code depth} after it
     * loading in the background, into the next segment when this one ends sooner.
     */
    private void readAhead(RemoteSegmentMetadata segment, long nextPosition, int depth) {
        ReadAheadPlan plan = ReadAheadPlan.of(nextPosition, segment.segmentSizeBytes(), bytes.chunkBytes(), depth);
        for (int c = plan.fromChunk(); c <= plan.toChunk(); c++) {
            bytes.prefetch(segment, c);
        }
        if (plan.nextSegmentChunks() > 0) {
            nextAfter(segments.copiedSegments(segment.topicIdPartition()), segment.endOffset())
                    .ifPresent(next -> {
                        for (int c = 0; c < plan.nextSegmentChunks(); c++) {
                            bytes.prefetch(next, c);
                        }
                    });
        }
    }

    private RemoteBatch batch(RemoteSegmentMetadata segment, BatchHeader header) throws RemoteStorageException {
        return new RemoteBatch(
                header,
                bytes.read(segment, header.position(), header.sizeBytes()).asReadOnlyBuffer());
    }

    /** The header of the batch at {@code position}, checked against the segment; null at the segment's end. */
    private BatchHeader headerAt(RemoteSegmentMetadata segment, long position) throws RemoteStorageException {
        int size = segment.segmentSizeBytes();
        if (position >= size) {
            return null;
        }
        if (size - position < RecordBatchV2.HEADER_SIZE_BYTES) {
            throw corrupt(segment, position, "only " + (size - position) + " bytes left for a batch header");
        }
        ByteBuffer raw = bytes.read(segment, position, RecordBatchV2.HEADER_SIZE_BYTES);
        BatchHeader header = BatchHeader.parse(raw, raw.position(), (int) position);
        if (header.magic() != RecordBatchV2.MAGIC) {
            throw corrupt(segment, position, "magic " + header.magic());
        }
        if (header.sizeBytes() < RecordBatchV2.HEADER_SIZE_BYTES || position + header.sizeBytes() > size) {
            throw corrupt(segment, position, "batch of " + header.sizeBytes() + " bytes");
        }
        if (header.baseOffset() < segment.startOffset()
                || header.lastOffsetDelta() < 0
                || header.lastOffset() > segment.endOffset()) {
            throw corrupt(segment, position, "offsets [" + header.baseOffset() + ", " + header.lastOffset() + "]");
        }
        return header;
    }

    private static RemoteStorageException corrupt(RemoteSegmentMetadata segment, long position, String what) {
        return new RemoteStorageException(
                "remote segment " + segment.segmentId() + " [" + segment.startOffset() + ", " + segment.endOffset()
                        + "] is corrupt at byte " + position + ": " + what,
                false);
    }
}
