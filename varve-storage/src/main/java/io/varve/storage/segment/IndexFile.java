package io.varve.storage.segment;

import io.varve.storage.fs.DurableFiles;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A sparse index file of fixed-size entries, written with positional writes by one appender and read
 * with positional reads by any number of readers. The file holds exactly the entries (no
 * preallocation); {@link #entryCount()} is published only after an entry's bytes are written, so
 * readers never look at a half-written entry. A trailing partial entry (torn write) is ignored.
 */
abstract class IndexFile implements Closeable {

  /** A monotone test over entry numbers: true for a prefix of the entries, false after. */
  @FunctionalInterface
  interface EntryTest {
    boolean test(int entry) throws IOException;
  }

  protected final long baseOffset;
  private final int entrySizeBytes;
  private final FileChannel channel;
  private volatile Path file;
  private volatile int entryCount;

  protected IndexFile(Path file, long baseOffset, int entrySizeBytes) throws IOException {
    this.file = file;
    this.baseOffset = baseOffset;
    this.entrySizeBytes = entrySizeBytes;
    this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    try {
      this.entryCount = (int) Math.min(channel.size() / entrySizeBytes, Integer.MAX_VALUE);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  public final Path file() {
    return file;
  }

  public final int entryCount() {
    return entryCount;
  }

  /** True when the file's length is not a whole number of entries. */
  public final boolean hasPartialEntry() throws IOException {
    return channel.size() % entrySizeBytes != 0;
  }

  /** True once the index holds {@code maxIndexSizeBytes} worth of entries (always room for one). */
  public final boolean isFull(int maxIndexSizeBytes) {
    return entryCount >= Math.max(1, maxIndexSizeBytes / entrySizeBytes);
  }

  /** Drops every entry (the index is about to be rebuilt). */
  public void clear() throws IOException {
    channel.truncate(0);
    entryCount = 0;
  }

  /** Renames the file, replacing any file at {@code target}; the open channel keeps working. */
  public final void renameTo(Path target) throws IOException {
    Files.move(file, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    file = target;
  }

  public final void flush() throws IOException {
    channel.force(true);
  }

  @Override
  public final void close() throws IOException {
    channel.close();
  }

  /** The bytes of entry {@code i}. */
  protected final ByteBuffer readEntry(int i) throws IOException {
    ByteBuffer bytes = ByteBuffer.allocate(entrySizeBytes);
    DurableFiles.readFully(channel, bytes, (long) i * entrySizeBytes);
    return bytes.flip();
  }

  /** Writes the next entry then publishes it; single writer only. */
  protected final void writeEntry(ByteBuffer entry) throws IOException {
    if (entry.remaining() != entrySizeBytes) {
      throw new IllegalArgumentException("Entry of " + entry.remaining() + " bytes, expected " + entrySizeBytes);
    }
    int count = entryCount;
    DurableFiles.writeFully(channel, entry, (long) count * entrySizeBytes);
    entryCount = count + 1;
  }

  /** Largest entry number below {@code count} passing {@code test}, or -1 when none does. */
  protected static int lastEntryWhere(int count, EntryTest test) throws IOException {
    int low = 0;
    int high = count - 1;
    int found = -1;
    while (low <= high) {
      int mid = (low + high) >>> 1;
      if (test.test(mid)) {
        found = mid;
        low = mid + 1;
      } else {
        high = mid - 1;
      }
    }
    return found;
  }

  /** {@code offset} relative to the segment's base offset, which must fit an int32. */
  protected final int toRelative(long offset) {
    long relative = offset - baseOffset;
    if (relative < 0 || relative > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(file + ": offset " + offset + " is not within int32 of base " + baseOffset);
    }
    return (int) relative;
  }
}
