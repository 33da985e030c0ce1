package io.varve.storage;

import java.nio.channels.FileChannel;

/**
 * Whole record batches located in a segment file, for zero-copy sending ({@code FileChannel.transferTo}
 * or Netty's {@code DefaultFileRegion}), plus the log offsets seen by the read. The channel belongs to
 * the log: read from it (positional only), never close or write it. It stays open at least
 * {@code file.delete.delay.ms} after its segment is deleted by retention or compaction, so a send in
 * flight completes; closing the log (shutdown, topic deletion) closes it at once, and a send then fails
 * with ClosedChannelException.
 *
 * @param channel   the segment file, or null when {@code sizeBytes} is 0
 * @param position  where the first batch starts in the file
 * @param sizeBytes bytes of whole batches from {@code position}; 0 when nothing qualified
 */
public record LogSlice(FileChannel channel, long position, int sizeBytes, long highWatermark, long logStartOffset,
    long logEndOffset) {

  public boolean isEmpty() {
    return sizeBytes == 0;
  }
}
