package io.varve.broker.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.network.ResponseFrame;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResponseWriterTest {

    @Test
    void aFetchResponseWithAFileSliceIsTheSameFrameAsWithTheBytesInMemory(@TempDir Path dir) throws IOException {
        MemoryRecords records = MemoryRecords.withRecords(
                RecordBatch.CURRENT_MAGIC_VALUE,
                Compression.NONE,
                new SimpleRecord("k".getBytes(), "v".getBytes()),
                new SimpleRecord(null, "w".getBytes()));
        Path file = dir.resolve("segment.log");
        byte[] prefix = new byte[37];
        Files.write(file, prefix);
        Files.write(file, toArray(records.buffer()), StandardOpenOption.APPEND);
        short version = 12;
        try (FileChannel channel = FileChannel.open(file)) {
            ResponseFrame zeroCopy = ResponseWriter.write(
                    ApiKeys.FETCH,
                    version,
                    42,
                    fetchResponse(new FileSliceRecords(channel, prefix.length, records.sizeInBytes())));
            ResponseFrame inMemory = ResponseWriter.write(ApiKeys.FETCH, version, 42, fetchResponse(records));

            assertThat(zeroCopy.parts()).hasAtLeastOneElementOfType(ResponseFrame.FileRegionPart.class);
            byte[] expected = flatten(inMemory, null);
            assertThat(flatten(zeroCopy, channel)).isEqualTo(expected);

            ByteBuffer frame = ByteBuffer.wrap(expected);
            assertThat(frame.getInt()).isEqualTo(expected.length - 4);
            ResponseHeaderData header =
                    new ResponseHeaderData(new ByteBufferAccessor(frame), ApiKeys.FETCH.responseHeaderVersion(version));
            assertThat(header.correlationId()).isEqualTo(42);
            FetchResponseData parsed = new FetchResponseData(new ByteBufferAccessor(frame), version);
            MemoryRecords back = (MemoryRecords)
                    parsed.responses().get(0).partitions().get(0).records();
            assertThat(back.buffer()).isEqualTo(records.buffer().duplicate().rewind());
        }
    }

    private static FetchResponseData fetchResponse(org.apache.kafka.common.record.internal.BaseRecords records) {
        FetchResponseData response = new FetchResponseData();
        FetchableTopicResponse topic = new FetchableTopicResponse().setTopic("t");
        topic.partitions()
                .add(new PartitionData()
                        .setPartitionIndex(0)
                        .setHighWatermark(2)
                        .setRecords(records));
        response.responses().add(topic);
        return response;
    }

    private static byte[] flatten(ResponseFrame frame, FileChannel channel) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (ResponseFrame.Part part : frame.parts()) {
            if (part instanceof ResponseFrame.Bytes bytes) {
                out.write(toArray(bytes.buffer()));
            } else if (part instanceof ResponseFrame.FileRegionPart region) {
                ByteBuffer buffer = ByteBuffer.allocate(region.sizeBytes());
                region.channel().read(buffer, region.position());
                out.write(buffer.array());
            }
        }
        return out.toByteArray();
    }

    private static byte[] toArray(ByteBuffer buffer) {
        ByteBuffer b = buffer.duplicate();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return bytes;
    }
}
