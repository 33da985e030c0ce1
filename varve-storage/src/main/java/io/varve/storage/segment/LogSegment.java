package io.varve.storage.segment;

import static io.varve.storage.batch.RecordBatchV2.*;

import io.varve.storage.batch.BatchHeader;
import io.varve.storage.batch.RecordBatchV2;
import io.varve.storage.fs.DurableFiles;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A {@code .log} file of whole v2 batches and its {@link OffsetIndex}. One thread appends; any number
 * read concurrently with positional reads bounded by {@link #sizeBytes()}, which is published only
 * after the bytes and their index entries are written, so readers never see a partial append.
 */
public final class LogSegment implements Closeable {

  private static final int LOAD_READ_AHEAD_BYTES = 64 * 1024;
  private static final int FETCH_READ_AHEAD_BYTES = 8 * 1024;

  private final long baseOffset;
  private final Path logFile;
  private final FileChannel channel;
  private final OffsetIndex index;
  /** True from opening a segment whose index file did not exist until the index is rebuilt. */
  private boolean indexWasMissing;
  private volatile int sizeBytes;
  /** Appender-only: bytes written since the last index entry. */
  private int bytesSinceLastIndexEntry;

  private LogSegment(long baseOffset, Path logFile, FileChannel channel, OffsetIndex index, boolean indexWasMissing,
      int sizeBytes) {
    this.baseOffset = baseOffset;
    this.indexWasMissing = indexWasMissing;
    this.logFile = logFile;
    this.channel = channel;
    this.index = index;
    this.sizeBytes = sizeBytes;
  }

  /** Creates a new empty segment; fails if its log file already exists. */
  public static LogSegment create(Path dir, long baseOffset) throws IOException {
    Path logFile = SegmentFiles.logFile(dir, baseOffset);
    FileChannel channel = FileChannel.open(logFile, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    return withIndex(dir, baseOffset, logFile, channel, true);
  }

  /** Opens an existing segment; its index is created empty when missing (check it before use). */
  public static LogSegment open(Path dir, long baseOffset) throws IOException {
    Path logFile = SegmentFiles.logFile(dir, baseOffset);
    FileChannel channel = FileChannel.open(logFile, StandardOpenOption.READ, StandardOpenOption.WRITE);
    return withIndex(dir, baseOffset, logFile, channel, false);
  }

  private static LogSegment withIndex(Path dir, long baseOffset, Path logFile, FileChannel channel, boolean fresh)
      throws IOException {
    try {
      long size = channel.size();
      if (size > Integer.MAX_VALUE) {
        throw new IOException(logFile + " is " + size + " bytes, beyond the int32 positions of the index");
      }
      Path indexFile = SegmentFiles.indexFile(dir, baseOffset);
      if (fresh) {
        Files.deleteIfExists(indexFile);
      }
      boolean indexWasMissing = !Files.exists(indexFile);
      return new LogSegment(baseOffset, logFile, channel, OffsetIndex.open(indexFile, baseOffset), indexWasMissing,
          (int) size);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  public long baseOffset() {
    return baseOffset;
  }

  public Path logFile() {
    return logFile;
  }

  public OffsetIndex index() {
    return index;
  }

  /** Bytes of complete appends; readers never look past it. */
  public int sizeBytes() {
    return sizeBytes;
  }

  public boolean isEmpty() {
    return sizeBytes == 0;
  }

  /** True when offsets up to {@code lastOffset} fit the index's int32 relative offsets. */
  public boolean canHoldOffsetsUpTo(long lastOffset) {
    return lastOffset - baseOffset <= Integer.MAX_VALUE;
  }

  /**
   * Appends validated, offset-patched batches (position to limit of {@code batches}), adding an index
   * entry before a batch once {@code indexIntervalBytes} were written since the previous entry and
   * the index is not full. On an I/O error the file is cut back to its previous size.
   */
  public void append(ByteBuffer batches, int indexIntervalBytes, int maxIndexSizeBytes) throws IOException {
    int start = sizeBytes;
    int length = batches.remaining();
    int from = batches.position();
    if ((long) start + length > Integer.MAX_VALUE) {
      throw new IllegalStateException(logFile + ": append of " + length + " bytes would pass int32 positions");
    }
    for (int at = 0; at < length; at += RecordBatchV2.sizeBytes(batches, from + at)) {
      long lastOffset = batches.getLong(from + at + BASE_OFFSET_OFFSET)
          + batches.getInt(from + at + LAST_OFFSET_DELTA_OFFSET);
      if (!canHoldOffsetsUpTo(lastOffset)) {
        throw new IllegalStateException(logFile + ": offset " + lastOffset + " is beyond int32 of base " + baseOffset);
      }
    }
    try {
      DurableFiles.writeFully(channel, batches.duplicate(), start);
      // index entries go after the bytes they point at
      for (int at = 0; at < length; ) {
        int batchSize = RecordBatchV2.sizeBytes(batches, from + at);
        if (bytesSinceLastIndexEntry >= indexIntervalBytes && !index.isFull(maxIndexSizeBytes)) {
          index.append(batches.getLong(from + at + BASE_OFFSET_OFFSET), start + at);
          bytesSinceLastIndexEntry = 0;
        }
        bytesSinceLastIndexEntry += batchSize;
        at += batchSize;
      }
    } catch (IOException | RuntimeException e) {
      channel.truncate(start);
      throw e;
    }
    sizeBytes = start + length;
  }

  /**
   * Whole batches starting with the first one whose last offset is at or past {@code startOffset}:
   * at most {@code maxBytes}, but the first batch even when larger if {@code minOneBatch}, and none
   * whose base offset is at or past {@code maxOffsetExclusive}.
   *
   * @return the bytes (possibly empty), or null when no batch of this segment reaches {@code startOffset}
   */
  public ByteBuffer read(long startOffset, long maxOffsetExclusive, int maxBytes, boolean minOneBatch)
      throws IOException {
    int size = sizeBytes;
    int from = index.lookup(startOffset);
    if (from >= size) {
      from = 0; // defensive: an entry newer than our size snapshot; scanning from the start is always right
    }
    BatchHeaderScanner scanner = new BatchHeaderScanner(channel, from, size, baseOffset, false, FETCH_READ_AHEAD_BYTES);
    BatchHeader first;
    while ((first = scanner.next()) != null && first.lastOffset() < startOffset) {
      // skip batches before the one holding startOffset
    }
    if (first == null) {
      if (scanner.stop() != BatchHeaderScanner.Stop.END) {
        throw new IOException(logFile + " is corrupt at position " + scanner.position() + ": " + scanner.stopReason());
      }
      return null;
    }
    if (first.baseOffset() >= maxOffsetExclusive || (first.sizeBytes() > maxBytes && !minOneBatch)) {
      return ByteBuffer.allocate(0);
    }
    int readBytes = Math.max(first.sizeBytes(), Math.min(maxBytes, size - first.position()));
    ByteBuffer bytes = ByteBuffer.allocate(readBytes);
    DurableFiles.readFully(channel, bytes, first.position());
    bytes.flip();
    bytes.limit(wholeBatchesPrefix(bytes, maxOffsetExclusive));
    return bytes;
  }

  /** Length of the prefix of {@code bytes} made of whole batches with base offset below the limit; at least one. */
  private static int wholeBatchesPrefix(ByteBuffer bytes, long maxOffsetExclusive) {
    int end = RecordBatchV2.sizeBytes(bytes, 0);
    while (end + HEADER_SIZE_BYTES <= bytes.limit()) {
      int next = RecordBatchV2.sizeBytes(bytes, end);
      if (end + next > bytes.limit() || bytes.getLong(end + BASE_OFFSET_OFFSET) >= maxOffsetExclusive) {
        break;
      }
      end += next;
    }
    return end;
  }

  /** A header scanner over this segment's complete bytes from a batch boundary. */
  public BatchHeaderScanner scanner(int fromPosition, boolean verifyCrc) {
    return new BatchHeaderScanner(channel, fromPosition, sizeBytes, baseOffset, verifyCrc, LOAD_READ_AHEAD_BYTES);
  }

  /**
   * Reads headers from the last index entry to the end to find the offset after the last batch.
   * Cheap: touches at most about one index interval of data.
   */
  public ScanResult scanTail() throws IOException {
    BatchHeaderScanner scanner = scanner(Math.min(index.lookup(Long.MAX_VALUE), sizeBytes), false);
    long nextOffset = baseOffset;
    for (BatchHeader header = scanner.next(); header != null; header = scanner.next()) {
      nextOffset = header.nextOffset();
    }
    return new ScanResult(scanner.position(), nextOffset, scanner.stop(), scanner.stopReason());
  }

  /**
   * Rebuilds the index from the batches in the file. With {@code recover}, CRCs are checked and the file
   * is truncated after the last valid batch (torn write or garbage tail); without, the file is left
   * as is and the result says whether the whole file was valid.
   */
  public ScanResult rebuildIndex(int indexIntervalBytes, int maxIndexSizeBytes, boolean recover) throws IOException {
    sizeBytes = (int) channel.size();
    index.clear();
    indexWasMissing = false;
    bytesSinceLastIndexEntry = 0;
    BatchHeaderScanner scanner = scanner(0, recover);
    long nextOffset = baseOffset;
    for (BatchHeader header = scanner.next(); header != null; header = scanner.next()) {
      if (bytesSinceLastIndexEntry >= indexIntervalBytes && !index.isFull(maxIndexSizeBytes)) {
        index.append(header.baseOffset(), header.position());
        bytesSinceLastIndexEntry = 0;
      }
      bytesSinceLastIndexEntry += header.sizeBytes();
      nextOffset = header.nextOffset();
    }
    if (recover && scanner.position() < sizeBytes) {
      channel.truncate(scanner.position());
      channel.force(true);
      sizeBytes = scanner.position();
    }
    index.flush();
    return new ScanResult(scanner.position(), nextOffset, scanner.stop(), scanner.stopReason());
  }

  /**
   * Cheap sanity check of the index against the log: whole entries, and its first and last entries
   * point at batch starts whose base offsets match. Anything else means the index must be rebuilt.
   */
  public boolean indexLooksConsistent() throws IOException {
    if (index.hasPartialEntry()) {
      return false;
    }
    int count = index.entryCount();
    if (count == 0) {
      // no entries is right for a small segment, but a missing file for a non-empty one needs a rebuild
      return sizeBytes == 0 || !indexWasMissing;
    }
    OffsetIndex.Entry first = index.entry(0);
    OffsetIndex.Entry last = index.entry(count - 1);
    return pointsAtBatch(first) && pointsAtBatch(last)
        && (count == 1 || (last.offset() > first.offset() && last.position() > first.position()));
  }

  private boolean pointsAtBatch(OffsetIndex.Entry entry) throws IOException {
    if (entry.offset() < baseOffset || entry.position() < 0
        || (long) entry.position() + HEADER_SIZE_BYTES > sizeBytes) {
      return false;
    }
    ByteBuffer baseOffsetBytes = ByteBuffer.allocate(Long.BYTES);
    DurableFiles.readFully(channel, baseOffsetBytes, entry.position());
    return baseOffsetBytes.getLong(0) == entry.offset();
  }

  public void flush() throws IOException {
    channel.force(true);
    index.flush();
  }

  @Override
  public void close() throws IOException {
    try {
      channel.close();
    } finally {
      index.close();
    }
  }
}
