package io.varve.storage.segment;

import static io.varve.storage.batch.RecordBatchV2.*;

import io.varve.storage.batch.BatchHeader;
import io.varve.storage.batch.RecordBatchV2;
import io.varve.storage.fs.DurableFiles;
import io.varve.storage.fs.FileHandleBudget;
import io.varve.storage.fs.FileHandlesExhaustedException;
import io.varve.storage.fs.SegmentChannel;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * A {@code .log} file of whole v2 batches with its {@link OffsetIndex}, {@link TimeIndex} and, once it holds
 * an ABORT marker, its {@link TransactionIndex}. One
 * thread appends; any number read concurrently with positional reads bounded by {@link #sizeBytes()},
 * which is published only after the bytes and their index entries are written, so readers never see a
 * partial append. A segment that is no longer active is never written again.
 */
public final class LogSegment implements Closeable {

    private static final int LOAD_READ_AHEAD_BYTES = 64 * 1024;
    private static final int FETCH_READ_AHEAD_BYTES = 8 * 1024;

    /**
     * Where whole batches lie in the segment file; a size of 0 means none qualified.
     *
     * @param nextOffset the offset after the last batch of the slice (at most the next batch's base offset);
     *                   the first batch's base offset when the slice is empty
     */
    public record Slice(int position, int sizeBytes, long nextOffset) {}

    /** The segment's largest batch max timestamp and the base offset of the first batch that reached it. */
    public record MaxTimestamp(long timestampMs, long offset) {}

    private final Path dir;
    private final long baseOffset;
    /** The .log file's descriptor, opened on first use within the node's budget (see {@link FileHandleBudget}). */
    private final SegmentChannel file;
    /** True from an append or truncation until the next fsync. */
    private volatile boolean unflushed;
    /** "" for a live segment, else {@link SegmentFiles#DELETED_SUFFIX} or {@link SegmentFiles#CLEANED_SUFFIX}. */
    private volatile String stateSuffix;

    private volatile OffsetIndex index;
    private volatile TimeIndex timeIndex;
    private final TransactionIndex txnIndex;
    /** True from opening a segment with an index file missing until the indexes are rebuilt. */
    private boolean indexWasMissing;

    private volatile int sizeBytes;
    /** Null until the first batch; published before {@link #sizeBytes}. */
    private volatile MaxTimestamp maxTimestamp;
    /** Wall-clock time segment.ms counts from, or -1 until known. */
    private volatile long rollBaseMs = -1;
    /** Appender-only: bytes written since the last index entry. */
    private int bytesSinceLastIndexEntry;

    private LogSegment(
            Path dir,
            long baseOffset,
            String stateSuffix,
            OffsetIndex index,
            TimeIndex timeIndex,
            TransactionIndex txnIndex,
            boolean indexWasMissing,
            int sizeBytes) {
        this.dir = dir;
        this.baseOffset = baseOffset;
        this.stateSuffix = stateSuffix;
        this.file = new SegmentChannel(FileHandleBudget.shared(), this::logFile);
        this.index = index;
        this.timeIndex = timeIndex;
        this.txnIndex = txnIndex;
        this.indexWasMissing = indexWasMissing;
        this.sizeBytes = sizeBytes;
        TimeIndex.Entry last = timeIndex.lastEntry();
        this.maxTimestamp = last == null ? null : new MaxTimestamp(last.timestampMs(), last.offset());
    }

    /** Creates a new empty segment; fails if its log file already exists. */
    public static LogSegment create(Path dir, long baseOffset) throws IOException {
        return create(dir, baseOffset, "");
    }

    /**
     * Creates an empty segment whose files carry the {@code .cleaned} suffix: a cleaner's output, invisible
     * to loading until {@code PartitionLog.replaceSegments} swaps it in.
     */
    public static LogSegment createCleaned(Path dir, long baseOffset) throws IOException {
        return create(dir, baseOffset, SegmentFiles.CLEANED_SUFFIX);
    }

    private static LogSegment create(Path dir, long baseOffset, String stateSuffix) throws IOException {
        Path logFile = path(dir, baseOffset, SegmentFiles.LOG_SUFFIX, stateSuffix);
        Files.createFile(logFile); // fails if it exists; the descriptor opens on first use
        return withIndexes(dir, baseOffset, stateSuffix, 0, true);
    }

    /** Opens an existing segment; missing indexes are created empty (check {@link #indexLooksConsistent()}). */
    public static LogSegment open(Path dir, long baseOffset) throws IOException {
        Path logFile = path(dir, baseOffset, SegmentFiles.LOG_SUFFIX, "");
        return withIndexes(dir, baseOffset, "", Files.size(logFile), false);
    }

    private static LogSegment withIndexes(Path dir, long baseOffset, String stateSuffix, long size, boolean fresh)
            throws IOException {
        OffsetIndex index = null;
        TimeIndex timeIndex = null;
        try {
            if (size > Integer.MAX_VALUE) {
                throw new IOException(
                        dir + ": segment " + baseOffset + " is " + size + " bytes, beyond int32 positions");
            }
            Path indexFile = path(dir, baseOffset, SegmentFiles.INDEX_SUFFIX, stateSuffix);
            Path timeIndexFile = path(dir, baseOffset, SegmentFiles.TIME_INDEX_SUFFIX, stateSuffix);
            Path txnIndexFile = path(dir, baseOffset, SegmentFiles.TXN_INDEX_SUFFIX, stateSuffix);
            if (fresh) {
                Files.deleteIfExists(indexFile);
                Files.deleteIfExists(timeIndexFile);
                Files.deleteIfExists(txnIndexFile);
            }
            boolean missing = !Files.exists(indexFile) || !Files.exists(timeIndexFile);
            index = OffsetIndex.open(indexFile, baseOffset);
            timeIndex = TimeIndex.open(timeIndexFile, baseOffset);
            TransactionIndex txnIndex = TransactionIndex.open(txnIndexFile);
            return new LogSegment(dir, baseOffset, stateSuffix, index, timeIndex, txnIndex, missing, (int) size);
        } catch (IOException | RuntimeException e) {
            if (index != null) {
                index.close();
            }
            if (timeIndex != null) {
                timeIndex.close();
            }
            throw e;
        }
    }

    private static Path path(Path dir, long baseOffset, String kind, String stateSuffix) {
        return dir.resolve(SegmentFiles.fileName(baseOffset, kind + stateSuffix));
    }

    public long baseOffset() {
        return baseOffset;
    }

    public Path logFile() {
        return path(dir, baseOffset, SegmentFiles.LOG_SUFFIX, stateSuffix);
    }

    public OffsetIndex index() {
        return index;
    }

    public TimeIndex timeIndex() {
        return timeIndex;
    }

    /** The aborted-transaction index (its file exists only once the segment holds an abort). */
    public TransactionIndex txnIndex() {
        return txnIndex;
    }

    /** The aborted-transaction index file, when the segment has one (what tiered storage uploads beside the log). */
    public Optional<Path> txnIndexFile() {
        return txnIndex.exists() ? Optional.of(txnIndex.file()) : Optional.empty();
    }

    /**
     * The open file for zero-copy reads ({@code transferTo}): read it, never write it. It stays open until
     * the segment is closed, which for a retired segment is file.delete.delay.ms after its retirement.
     */
    public FileChannel channel() throws IOException {
        return file.get();
    }

    /** A descriptor for one operation: the segment's own, or a short-lived one when the node's budget is spent. */
    private record ChannelUse(FileChannel channel, boolean shortLived) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            if (shortLived) {
                channel.close();
            }
        }
    }

    private ChannelUse useChannel() throws IOException {
        try {
            return new ChannelUse(file.get(), false);
        } catch (FileHandlesExhaustedException e) {
            return new ChannelUse(
                    DurableFiles.openFollowingRenames(this::logFile, StandardOpenOption.READ, StandardOpenOption.WRITE),
                    true);
        }
    }

    /** Whether the .log file holds a descriptor now (a new or unread segment holds none). */
    public boolean holdsDescriptor() {
        return file.isOpen();
    }

    /** Bytes of complete appends; readers never look past it. */
    public int sizeBytes() {
        return sizeBytes;
    }

    public boolean isEmpty() {
        return sizeBytes == 0;
    }

    /** The largest batch timestamp and where it first occurred, or null for an empty segment. */
    public MaxTimestamp maxTimestamp() {
        return maxTimestamp;
    }

    /** What time-based retention compares: the largest batch timestamp, else the file's modification time. */
    public long largestTimestampMs() throws IOException {
        MaxTimestamp max = maxTimestamp;
        return max != null && max.timestampMs() >= 0
                ? max.timestampMs()
                : Files.getLastModifiedTime(logFile()).toMillis();
    }

    /** Wall-clock time segment.ms counts from, or -1 before the first append was seen. */
    public long rollBaseMs() {
        return rollBaseMs;
    }

    /** Starts the segment.ms clock at {@code nowMs} unless it is running already. */
    public void startRollClock(long nowMs) {
        if (rollBaseMs < 0) {
            rollBaseMs = nowMs;
        }
    }

    /** True when offsets up to {@code lastOffset} fit the indexes' int32 relative offsets. */
    public boolean canHoldOffsetsUpTo(long lastOffset) {
        return lastOffset - baseOffset <= Integer.MAX_VALUE;
    }

    /** True when either index is full: the segment must roll before the next append. */
    public boolean indexesFull(int maxIndexSizeBytes) {
        return index.isFull(maxIndexSizeBytes) || timeIndex.isFull(maxIndexSizeBytes);
    }

    /**
     * Appends validated, offset-patched batches (position to limit of {@code batches}). Once
     * {@code indexIntervalBytes} were written since the previous index entry, the next batch gets an
     * offset-index entry and the time index the segment's max timestamp if it rose. On an I/O error the
     * file is cut back to its previous size.
     */
    public void append(ByteBuffer batches, int indexIntervalBytes, int maxIndexSizeBytes) throws IOException {
        int start = sizeBytes;
        int length = batches.remaining();
        int from = batches.position();
        if ((long) start + length > Integer.MAX_VALUE) {
            throw new IllegalStateException(logFile() + ": append of " + length + " bytes would pass int32 positions");
        }
        for (int at = 0; at < length; at += RecordBatchV2.sizeBytes(batches, from + at)) {
            long lastOffset = batches.getLong(from + at + BASE_OFFSET_OFFSET)
                    + batches.getInt(from + at + LAST_OFFSET_DELTA_OFFSET);
            if (!canHoldOffsetsUpTo(lastOffset)) {
                throw new IllegalStateException(
                        logFile() + ": offset " + lastOffset + " is beyond int32 of base " + baseOffset);
            }
        }
        MaxTimestamp max = maxTimestamp;
        try (ChannelUse use = useChannel()) {
            FileChannel ch = use.channel();
            try {
                unflushed = true;
                DurableFiles.writeFully(ch, batches.duplicate(), start);
                // index entries go after the bytes they point at
                for (int at = 0; at < length; ) {
                    int batchSize = RecordBatchV2.sizeBytes(batches, from + at);
                    long batchBaseOffset = batches.getLong(from + at + BASE_OFFSET_OFFSET);
                    max = raised(max, batches.getLong(from + at + MAX_TIMESTAMP_OFFSET), batchBaseOffset);
                    if (bytesSinceLastIndexEntry >= indexIntervalBytes) {
                        addIndexEntries(index, timeIndex, maxIndexSizeBytes, batchBaseOffset, start + at, max);
                        bytesSinceLastIndexEntry = 0;
                    }
                    bytesSinceLastIndexEntry += batchSize;
                    at += batchSize;
                }
            } catch (IOException | RuntimeException e) {
                ch.truncate(start);
                throw e;
            }
        }
        maxTimestamp = max;
        sizeBytes = start + length;
    }

    private static MaxTimestamp raised(MaxTimestamp max, long batchMaxTimestampMs, long batchBaseOffset) {
        return max == null || batchMaxTimestampMs > max.timestampMs()
                ? new MaxTimestamp(batchMaxTimestampMs, batchBaseOffset)
                : max;
    }

    private static void addIndexEntries(
            OffsetIndex offsets,
            TimeIndex times,
            int maxIndexSizeBytes,
            long batchBaseOffset,
            int position,
            MaxTimestamp max)
            throws IOException {
        if (!offsets.isFull(maxIndexSizeBytes)) {
            offsets.append(batchBaseOffset, position);
        }
        if (!times.isFull(maxIndexSizeBytes)) {
            times.maybeAppend(max.timestampMs(), max.offset());
        }
    }

    /**
     * Records the segment's max timestamp as the time index's last entry (even when the index counts as
     * full) so that retention and lookups know it without reading the log; then trims the indexes to their entries
     * and fsyncs everything.
     * Called when the segment stops being active and at clean shutdown.
     */
    public void finish() throws IOException {
        finishUnsynced();
        flush();
    }

    /**
     * {@link #finish()} without the fsyncs: a roll on the append path leaves them to {@link #flush()} on a background
     * thread (an fsync of up to segment.bytes of dirty pages must not stall the produce requests behind it).
     */
    public void finishUnsynced() throws IOException {
        MaxTimestamp max = maxTimestamp;
        if (max != null) {
            timeIndex.maybeAppend(max.timestampMs(), max.offset());
        }
        index.sealUnsynced();
        timeIndex.sealUnsynced();
    }

    /**
     * Whole batches starting with the first one whose last offset is at or past {@code startOffset}:
     * at most {@code maxBytes}, but the first batch even when larger if {@code minOneBatch}, and none
     * whose base offset is at or past {@code maxOffsetExclusive}. Reads batch headers only: offset-index
     * entries (always batch boundaries) let it skip to near the byte limit.
     *
     * @return where the batches lie (size 0 when none qualifies), or null when no batch of this segment
     *     reaches {@code startOffset}
     * @throws CorruptSegmentException an invalid batch header before the batch holding startOffset
     */
    public Slice locate(long startOffset, long maxOffsetExclusive, int maxBytes, boolean minOneBatch)
            throws IOException {
        if (sizeBytes == 0) {
            return null; // an empty segment is read without a descriptor: fetches of idle partitions open nothing
        }
        try (ChannelUse use = useChannel()) {
            FileChannel ch = use.channel();
            int size = sizeBytes;
            OffsetIndex offsets = index;
            BatchHeader first = firstBatchReaching(ch, startOffset, offsets, size);
            if (first == null) {
                return null;
            }
            if (first.baseOffset() >= maxOffsetExclusive || (first.sizeBytes() > maxBytes && !minOneBatch)) {
                return new Slice(first.position(), 0, first.baseOffset());
            }
            long limitPosition = Math.min(size, (long) first.position() + Math.max(maxBytes, first.sizeBytes()));
            int end = first.endPosition();
            long endOffset = first.nextOffset();
            // batches before an index entry within both limits are whole and qualify: jump over them
            OffsetIndex.Entry jump = offsets.lastEntryWithin(limitPosition, maxOffsetExclusive - 1);
            if (jump != null && jump.position() > end) {
                end = jump.position();
                endOffset = jump.offset();
            }
            BatchHeaderScanner tail =
                    new BatchHeaderScanner(ch, end, (int) limitPosition, baseOffset, false, FETCH_READ_AHEAD_BYTES);
            for (BatchHeader next = tail.next();
                    next != null && next.baseOffset() < maxOffsetExclusive;
                    next = tail.next()) {
                end = next.endPosition();
                endOffset = next.nextOffset();
            }
            return new Slice(first.position(), end - first.position(), endOffset);
        }
    }

    /** {@link #locate} then a copy of those bytes into a heap buffer; null as for locate. */
    public ByteBuffer read(long startOffset, long maxOffsetExclusive, int maxBytes, boolean minOneBatch)
            throws IOException {
        Slice slice = locate(startOffset, maxOffsetExclusive, maxBytes, minOneBatch);
        if (slice == null) {
            return null;
        }
        return readAt(slice.position(), slice.sizeBytes());
    }

    /** A copy of {@code sizeBytes} bytes at {@code position} (whole batches the caller located). */
    public ByteBuffer readAt(int position, int sizeBytes) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(sizeBytes);
        try (ChannelUse use = useChannel()) {
            DurableFiles.readFully(use.channel(), bytes, position);
        }
        return bytes.flip();
    }

    /** The batch holding {@code offset} or the first after it, or null when the segment ends first. */
    public BatchHeader batchContaining(long offset) throws IOException {
        if (sizeBytes == 0) {
            return null;
        }
        try (ChannelUse use = useChannel()) {
            return firstBatchReaching(use.channel(), offset, index, sizeBytes);
        }
    }

    private BatchHeader firstBatchReaching(FileChannel ch, long offset, OffsetIndex offsets, int size)
            throws IOException {
        int from = offsets.lookup(offset);
        if (from >= size) {
            from = 0; // an entry newer than our size snapshot; scanning from the start is always right
        }
        BatchHeaderScanner scanner = new BatchHeaderScanner(ch, from, size, baseOffset, false, FETCH_READ_AHEAD_BYTES);
        for (BatchHeader header = scanner.next(); header != null; header = scanner.next()) {
            if (header.lastOffset() >= offset) {
                return header;
            }
        }
        throwIfCorrupt(scanner);
        return null;
    }

    /**
     * The first batch at or after {@code minOffset} whose max timestamp is at least {@code timestampMs}
     * and whose base offset is below {@code maxOffsetExclusive}, or null. The time index names where to
     * start: batches before its entry's offset are all older than the target.
     */
    public BatchHeader firstBatchWithTimestampAtLeast(long timestampMs, long minOffset, long maxOffsetExclusive)
            throws IOException {
        int size = sizeBytes;
        MaxTimestamp max = maxTimestamp;
        if (max == null || max.timestampMs() < timestampMs) {
            return null;
        }
        TimeIndex.Entry entry = timeIndex.lookup(timestampMs);
        long from = Math.max(entry == null ? baseOffset : entry.offset(), minOffset);
        try (ChannelUse use = useChannel()) {
            FileChannel ch = use.channel();
            int position = index.lookup(from);
            BatchHeaderScanner scanner = new BatchHeaderScanner(
                    ch, position < size ? position : 0, size, baseOffset, false, FETCH_READ_AHEAD_BYTES);
            for (BatchHeader header = scanner.next(); header != null; header = scanner.next()) {
                if (header.baseOffset() >= maxOffsetExclusive) {
                    return null;
                }
                if (header.lastOffset() >= minOffset && header.maxTimestamp() >= timestampMs) {
                    return header;
                }
            }
            throwIfCorrupt(scanner);
            return null;
        }
    }

    private void throwIfCorrupt(BatchHeaderScanner scanner) throws CorruptSegmentException {
        if (scanner.stop() != BatchHeaderScanner.Stop.END) {
            throw new CorruptSegmentException(
                    logFile() + " is corrupt at position " + scanner.position() + ": " + scanner.stopReason());
        }
    }

    /** A header scanner over this segment's complete bytes from a batch boundary. */
    public BatchHeaderScanner scanner(int fromPosition, boolean verifyCrc) throws IOException {
        return new BatchHeaderScanner(channel(), fromPosition, sizeBytes, baseOffset, verifyCrc, LOAD_READ_AHEAD_BYTES);
    }

    /**
     * Reads headers from the last index entry to the end to find the offset after the last batch.
     * Cheap: touches at most about one index interval of data.
     */
    public ScanResult scanTail() throws IOException {
        if (sizeBytes == 0) {
            return new ScanResult(0, baseOffset, BatchHeaderScanner.Stop.END, ""); // nothing to read: no descriptor
        }
        try (ChannelUse use = useChannel()) {
            BatchHeaderScanner scanner = new BatchHeaderScanner(
                    use.channel(),
                    Math.min(index.lookup(Long.MAX_VALUE), sizeBytes),
                    sizeBytes,
                    baseOffset,
                    false,
                    LOAD_READ_AHEAD_BYTES);
            long nextOffset = baseOffset;
            for (BatchHeader header = scanner.next(); header != null; header = scanner.next()) {
                nextOffset = header.nextOffset();
            }
            return new ScanResult(scanner.position(), nextOffset, scanner.stop(), scanner.stopReason());
        }
    }

    /**
     * Rebuilds both indexes from the batches in the file, into temp files renamed over the old ones so
     * that a crash mid-rebuild never leaves a short index that looks whole. With {@code recover}, CRCs
     * are checked, the file is truncated after the last valid batch (torn write or garbage tail) and
     * fsynced; without, the file is left as is and the result says whether the whole file was valid.
     */
    public ScanResult rebuildIndex(int indexIntervalBytes, int maxIndexSizeBytes, boolean recover) throws IOException {
        return rebuildIndex(indexIntervalBytes, maxIndexSizeBytes, recover, recover);
    }

    /**
     * {@link #rebuildIndex(int, int, boolean)} with the two halves of recovery separate: a rolled segment
     * is CRC-checked but never truncated (an invalid batch there is damage, not a torn write).
     */
    public ScanResult rebuildIndex(
            int indexIntervalBytes, int maxIndexSizeBytes, boolean verifyCrc, boolean truncateInvalidTail)
            throws IOException {
        sizeBytes = (int) channel().size();
        Path indexFile = index.file();
        Path timeIndexFile = timeIndex.file();
        Path indexTemp = indexFile.resolveSibling(indexFile.getFileName() + DurableFiles.TEMP_SUFFIX);
        Path timeIndexTemp = timeIndexFile.resolveSibling(timeIndexFile.getFileName() + DurableFiles.TEMP_SUFFIX);
        Files.deleteIfExists(indexTemp);
        Files.deleteIfExists(timeIndexTemp);
        OffsetIndex newIndex = OffsetIndex.open(indexTemp, baseOffset);
        TimeIndex newTimeIndex = null;
        ScanResult result;
        MaxTimestamp max = null;
        int bytesSinceEntry = 0;
        try {
            newTimeIndex = TimeIndex.open(timeIndexTemp, baseOffset);
            BatchHeaderScanner scanner = scanner(0, verifyCrc);
            long nextOffset = baseOffset;
            for (BatchHeader header = scanner.next(); header != null; header = scanner.next()) {
                max = raised(max, header.maxTimestamp(), header.baseOffset());
                if (bytesSinceEntry >= indexIntervalBytes) {
                    addIndexEntries(
                            newIndex, newTimeIndex, maxIndexSizeBytes, header.baseOffset(), header.position(), max);
                    bytesSinceEntry = 0;
                }
                bytesSinceEntry += header.sizeBytes();
                nextOffset = header.nextOffset();
            }
            if (max != null) {
                newTimeIndex.maybeAppend(max.timestampMs(), max.offset());
            }
            if (truncateInvalidTail) {
                if (scanner.position() < sizeBytes) {
                    channel().truncate(scanner.position());
                    sizeBytes = scanner.position();
                }
                channel().force(true); // what recovery validated becomes durable, so the recovery point may pass it
            }
            newIndex.seal();
            newTimeIndex.seal();
            result = new ScanResult(scanner.position(), nextOffset, scanner.stop(), scanner.stopReason());
        } catch (IOException | RuntimeException e) {
            newIndex.close();
            if (newTimeIndex != null) {
                newTimeIndex.close();
            }
            throw e;
        }
        index.close();
        timeIndex.close();
        newIndex.renameTo(indexFile);
        newTimeIndex.renameTo(timeIndexFile);
        DurableFiles.fsyncDirectory(dir);
        index = newIndex;
        timeIndex = newTimeIndex;
        maxTimestamp = max;
        bytesSinceLastIndexEntry = bytesSinceEntry;
        indexWasMissing = false;
        return result;
    }

    /**
     * Drops every batch holding an offset at or past {@code offset} (a batch that straddles it goes whole: records
     * are stored by the batch), makes the cut durable, drops the aborted transactions of markers from there on and
     * rebuilds both indexes from the batches kept (into new files renamed over the old ones, so reads in flight
     * keep valid maps). The segment may be appended to afterwards, even if it had been rolled.
     *
     * @return the offset after the last batch kept, or the base offset when none is
     */
    public long truncateTo(long offset, int indexIntervalBytes, int maxIndexSizeBytes) throws IOException {
        BatchHeader first = batchContaining(offset);
        if (first != null) {
            FileChannel ch = channel();
            ch.truncate(first.position());
            ch.force(true);
            txnIndex.truncateFrom(first.baseOffset());
            txnIndex.flush();
        }
        ScanResult kept = rebuildIndex(indexIntervalBytes, maxIndexSizeBytes, false, false);
        if (!kept.reachedEnd()) {
            throw new CorruptSegmentException(
                    logFile() + " is corrupt at position " + kept.validBytes() + ": " + kept.stopReason());
        }
        if (sizeBytes == 0) {
            rollBaseMs = -1;
        }
        return kept.nextOffset();
    }

    /**
     * Sanity check of the indexes that reads only the index files, never the log: whole entries, entries
     * within the segment, first and last entries in order. Anything else means they must be rebuilt.
     */
    public boolean indexLooksConsistent() throws IOException {
        if (index.hasPartialEntry() || timeIndex.hasPartialEntry()) {
            return false;
        }
        if (sizeBytes == 0) {
            return index.entryCount() == 0 && timeIndex.entryCount() == 0;
        }
        if (indexWasMissing) {
            return false;
        }
        OffsetIndex.Entry last = index.lastEntry();
        if (last != null) {
            OffsetIndex.Entry first = index.entry(0);
            if (first.offset() < baseOffset
                    || first.position() < 0
                    || (long) last.position() + HEADER_SIZE_BYTES > sizeBytes
                    || (index.entryCount() > 1
                            && (last.offset() <= first.offset() || last.position() <= first.position()))) {
                return false;
            }
        }
        TimeIndex.Entry lastTime = timeIndex.lastEntry();
        if (lastTime != null) {
            TimeIndex.Entry firstTime = timeIndex.entry(0);
            return firstTime.offset() >= baseOffset
                    && lastTime.offset() >= firstTime.offset()
                    && lastTime.timestampMs() >= firstTime.timestampMs();
        }
        return true;
    }

    /**
     * Renames the segment's files to carry {@code newStateSuffix} ("" for a live segment); the open
     * channels keep working, so readers in flight are not disturbed. The log file moves first.
     */
    public void changeStateSuffix(String newStateSuffix) throws IOException {
        Files.move(
                logFile(),
                path(dir, baseOffset, SegmentFiles.LOG_SUFFIX, newStateSuffix),
                StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
        stateSuffix = newStateSuffix;
        index.renameTo(path(dir, baseOffset, SegmentFiles.INDEX_SUFFIX, newStateSuffix));
        timeIndex.renameTo(path(dir, baseOffset, SegmentFiles.TIME_INDEX_SUFFIX, newStateSuffix));
        txnIndex.renameTo(path(dir, baseOffset, SegmentFiles.TXN_INDEX_SUFFIX, newStateSuffix));
    }

    /** Closes the segment and deletes its files. */
    public void closeAndDelete() throws IOException {
        close();
        Files.deleteIfExists(logFile());
        Files.deleteIfExists(index.file());
        Files.deleteIfExists(timeIndex.file());
        Files.deleteIfExists(txnIndex.file());
    }

    public void flush() throws IOException {
        flushLog();
        index.flush();
        timeIndex.flush();
        txnIndex.flush();
    }

    private void flushLog() throws IOException {
        if (unflushed) {
            unflushed = false;
            try {
                try (ChannelUse use = useChannel()) {
                    use.channel().force(true); // any descriptor of the file flushes what another one wrote
                }
            } catch (IOException | RuntimeException e) {
                unflushed = true;
                throw e;
            }
        }
    }

    @Override
    public void close() throws IOException {
        try {
            file.close();
        } finally {
            try {
                index.close();
            } finally {
                try {
                    timeIndex.close();
                } finally {
                    txnIndex.close();
                }
            }
        }
    }

    @Override
    public String toString() {
        return logFile().getFileName() + " (" + sizeBytes + " bytes)";
    }
}
