package io.varve.broker.protocol;

import io.varve.broker.network.ResponseFrame;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageSizeAccumulator;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Serialises a response frame: 4-byte size, response header, body. Record sets are never copied: those in segment
 * files ({@link FileSliceRecords}) become file regions of the frame, in-memory ones are referenced as they are;
 * every other field is written into one heap buffer.
 */
public final class ResponseWriter {

    public static ResponseFrame write(ApiKeys apiKey, short apiVersion, int correlationId, ApiMessage response) {
        short headerVersion = apiKey.responseHeaderVersion(apiVersion);
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        MessageSizeAccumulator size = new MessageSizeAccumulator();
        header.addSize(size, cache, headerVersion);
        response.addSize(size, cache, apiVersion);
        ByteBuffer buffer = ByteBuffer.allocate(4 + size.sizeExcludingZeroCopy());
        buffer.putInt(size.totalSize());
        FrameWritable out = new FrameWritable(buffer);
        header.write(out, cache, headerVersion);
        response.write(out, cache, apiVersion);
        if (buffer.hasRemaining()) {
            throw new IllegalStateException(apiKey + " v" + apiVersion + " response wrote " + buffer.position() + " of "
                    + buffer.capacity() + " heap bytes");
        }
        return out.finish();
    }

    /** Copies primitives into the heap buffer and cuts it where a file region goes. */
    private static final class FrameWritable implements Writable {
        private final ByteBuffer buffer;
        private final ByteBufferAccessor accessor;
        private final List<ResponseFrame.Part> parts = new ArrayList<>();
        private int chunkStart;

        FrameWritable(ByteBuffer buffer) {
            this.buffer = buffer;
            this.accessor = new ByteBufferAccessor(buffer);
        }

        @Override
        public void writeRecords(BaseRecords records) {
            // Record sets count as zero-copy bytes in the size: each becomes its own part, never copied.
            cutChunk();
            if (records instanceof FileSliceRecords slice) {
                parts.add(new ResponseFrame.FileRegionPart(slice.channel(), slice.position(), slice.sizeBytes()));
            } else if (records instanceof MemoryRecords memory) {
                if (memory.sizeInBytes() > 0) {
                    parts.add(new ResponseFrame.Bytes(memory.buffer().duplicate()));
                }
            } else {
                throw new IllegalArgumentException(
                        "Cannot write records of type " + records.getClass().getName());
            }
        }

        private void cutChunk() {
            int end = buffer.position();
            if (end > chunkStart) {
                parts.add(new ResponseFrame.Bytes(
                        buffer.duplicate().position(chunkStart).limit(end).slice()));
            }
            chunkStart = end;
        }

        ResponseFrame finish() {
            cutChunk();
            return new ResponseFrame(List.copyOf(parts));
        }

        @Override
        public void writeByte(byte val) {
            accessor.writeByte(val);
        }

        @Override
        public void writeShort(short val) {
            accessor.writeShort(val);
        }

        @Override
        public void writeInt(int val) {
            accessor.writeInt(val);
        }

        @Override
        public void writeLong(long val) {
            accessor.writeLong(val);
        }

        @Override
        public void writeDouble(double val) {
            accessor.writeDouble(val);
        }

        @Override
        public void writeByteArray(byte[] arr) {
            accessor.writeByteArray(arr);
        }

        @Override
        public void writeUnsignedVarint(int i) {
            accessor.writeUnsignedVarint(i);
        }

        @Override
        public void writeByteBuffer(ByteBuffer buf) {
            // Only zero-copy bytes fields (an Envelope's embedded response) come here, and the size counts them as
            // zero-copy, outside the heap buffer: they become a part of their own, as record sets do.
            cutChunk();
            if (buf.hasRemaining()) {
                parts.add(new ResponseFrame.Bytes(buf.duplicate()));
            }
        }

        @Override
        public void writeVarint(int i) {
            accessor.writeVarint(i);
        }

        @Override
        public void writeVarlong(long i) {
            accessor.writeVarlong(i);
        }

        @Override
        public void writeUuid(Uuid uuid) {
            accessor.writeUuid(uuid);
        }
    }

    private ResponseWriter() {}
}
