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
 * @param channel   the segment file, or null when {@code sizeBytes} is 0 or the bytes were {@code copied}
 * @param position  where the first batch starts in the file
 * @param sizeBytes bytes of whole batches from {@code position}; 0 when nothing qualified
 * @param lastStableOffset the last stable offset seen with the high watermark (at most it)
 * @param nextOffset       the offset after the slice's last batch (an upper bound for the aborted transactions
 *                         a read_committed reader needs), the fetch offset when the slice is empty
 * @param copied    the batches themselves, read into memory, when the segment could get no descriptor of its own (the
 *                  node's file-handle budget was spent); null for a zero-copy slice
 */
public record LogSlice(
        FileChannel channel,
        long position,
        int sizeBytes,
        long highWatermark,
        long logStartOffset,
        long logEndOffset,
        long lastStableOffset,
        long nextOffset,
        java.nio.ByteBuffer copied) {

    /** A slice of a log without transactions: the last stable offset is the high watermark. */
    public LogSlice(
            FileChannel channel,
            long position,
            int sizeBytes,
            long highWatermark,
            long logStartOffset,
            long logEndOffset) {
        this(channel, position, sizeBytes, highWatermark, logStartOffset, logEndOffset, highWatermark, -1, null);
    }

    public boolean isEmpty() {
        return sizeBytes == 0;
    }
}
