package io.varve.broker.protocol;

import java.nio.channels.FileChannel;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.RecordsSend;

/**
 * Record batches that stay in a segment file: {@link ResponseWriter} turns them into a file region of the
 * response instead of copying them.
 */
public record FileSliceRecords(FileChannel channel, long position, int sizeBytes) implements BaseRecords {

    @Override
    public int sizeInBytes() {
        return sizeBytes;
    }

    @Override
    public RecordsSend<? extends BaseRecords> toSend() {
        throw new UnsupportedOperationException("FileSliceRecords are written by Varve's ResponseWriter only");
    }
}
