package io.varve.storage.segment;

import io.varve.storage.fs.DurableFiles;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Sparse offset index of one segment: 8-byte entries (int32 offset relative to the segment's base
 * offset, int32 file position), both strictly increasing. An entry names the base offset of a batch
 * and where that batch starts. The file holds exactly the entries (no preallocation), written with
 * positional writes; lookups are positional reads, so they may run beside the single appender.
 */
public final class OffsetIndex implements Closeable {

  public static final int ENTRY_SIZE_BYTES = 8;
  private static final long NO_ENTRY = -1L;

  /** One index entry with its offset made absolute. */
  public record Entry(long offset, int position) {}

  private final Path file;
  private final long baseOffset;
  private final FileChannel channel;
  /** Published after the entry's bytes are written; readers only look at entries below it. */
  private volatile int entryCount;
  /** The last entry packed as (relativeOffset << 32 | position), or NO_ENTRY: the tail lookup needs no I/O. */
  private volatile long lastEntryPacked;

  private OffsetIndex(Path file, long baseOffset, FileChannel channel, int entryCount, long lastEntryPacked) {
    this.file = file;
    this.baseOffset = baseOffset;
    this.channel = channel;
    this.entryCount = entryCount;
    this.lastEntryPacked = lastEntryPacked;
  }

  /** Opens the index file, creating an empty one if missing. A trailing partial entry is ignored. */
  public static OffsetIndex open(Path file, long baseOffset) throws IOException {
    FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    try {
      long sizeBytes = channel.size();
      int count = (int) Math.min(sizeBytes / ENTRY_SIZE_BYTES, Integer.MAX_VALUE);
      OffsetIndex index = new OffsetIndex(file, baseOffset, channel, count, NO_ENTRY);
      if (count > 0) {
        index.lastEntryPacked = index.packedAt(count - 1);
      }
      return index;
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  public Path file() {
    return file;
  }

  public int entryCount() {
    return entryCount;
  }

  /** True when the file's length is not a whole number of entries. */
  public boolean hasPartialEntry() throws IOException {
    return channel.size() % ENTRY_SIZE_BYTES != 0;
  }

  public boolean isFull(int maxIndexSizeBytes) {
    return entryCount >= maxIndexSizeBytes / ENTRY_SIZE_BYTES;
  }

  /** Adds an entry; offsets and positions must grow strictly. Single writer only. */
  public void append(long offset, int position) throws IOException {
    int relative = toRelative(offset);
    long last = lastEntryPacked;
    if (last != NO_ENTRY && (relative <= relativeOf(last) || position <= positionOf(last))) {
      throw new IllegalStateException(file + ": index entry (" + offset + ", " + position
          + ") does not follow (" + (baseOffset + relativeOf(last)) + ", " + positionOf(last) + ")");
    }
    int count = entryCount;
    ByteBuffer bytes = ByteBuffer.allocate(ENTRY_SIZE_BYTES).putInt(relative).putInt(position).flip();
    DurableFiles.writeFully(channel, bytes, (long) count * ENTRY_SIZE_BYTES);
    lastEntryPacked = pack(relative, position);
    entryCount = count + 1;
  }

  /**
   * File position of the batch with the largest indexed offset at or below {@code targetOffset};
   * 0 when no entry qualifies. The batch holding {@code targetOffset} starts at or after it.
   */
  public int lookup(long targetOffset) throws IOException {
    if (targetOffset < baseOffset) {
      return 0;
    }
    long target = Math.min(targetOffset - baseOffset, Integer.MAX_VALUE);
    long last = lastEntryPacked;
    int count = entryCount;
    if (last == NO_ENTRY || count == 0) {
      return 0;
    }
    if (relativeOf(last) <= target) {
      return positionOf(last);
    }
    // binary search for the largest entry <= target among those before the last one
    int low = 0;
    int high = count - 2;
    int found = -1;
    while (low <= high) {
      int mid = (low + high) >>> 1;
      if (relativeAt(mid) <= target) {
        found = mid;
        low = mid + 1;
      } else {
        high = mid - 1;
      }
    }
    return found < 0 ? 0 : entry(found).position();
  }

  public Entry entry(int i) throws IOException {
    long packed = packedAt(i);
    return new Entry(baseOffset + relativeOf(packed), positionOf(packed));
  }

  /** Drops every entry (the index is about to be rebuilt). */
  public void clear() throws IOException {
    channel.truncate(0);
    entryCount = 0;
    lastEntryPacked = NO_ENTRY;
  }

  public void flush() throws IOException {
    channel.force(true);
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }

  private long packedAt(int i) throws IOException {
    ByteBuffer bytes = ByteBuffer.allocate(ENTRY_SIZE_BYTES);
    DurableFiles.readFully(channel, bytes, (long) i * ENTRY_SIZE_BYTES);
    return bytes.getLong(0);
  }

  private int relativeAt(int i) throws IOException {
    ByteBuffer bytes = ByteBuffer.allocate(Integer.BYTES);
    DurableFiles.readFully(channel, bytes, (long) i * ENTRY_SIZE_BYTES);
    return bytes.getInt(0);
  }

  private int toRelative(long offset) {
    long relative = offset - baseOffset;
    if (relative < 0 || relative > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(file + ": offset " + offset + " is not within int32 of base " + baseOffset);
    }
    return (int) relative;
  }

  private static long pack(int relative, int position) {
    return ((long) relative << 32) | (position & 0xFFFF_FFFFL);
  }

  private static int relativeOf(long packed) {
    return (int) (packed >>> 32);
  }

  private static int positionOf(long packed) {
    return (int) packed;
  }
}
