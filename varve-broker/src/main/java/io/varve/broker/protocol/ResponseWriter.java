package io.varve.broker.protocol;

import java.nio.ByteBuffer;

import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/** Serialises a response frame: 4-byte size, response header, body. */
public final class ResponseWriter {

    public static ByteBuffer write(ApiKeys apiKey, short apiVersion, int correlationId, ApiMessage response) {
        short headerVersion = apiKey.responseHeaderVersion(apiVersion);
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int headerSize = header.size(cache, headerVersion);
        int bodySize = response.size(cache, apiVersion);
        ByteBuffer buffer = ByteBuffer.allocate(4 + headerSize + bodySize);
        buffer.putInt(headerSize + bodySize);
        ByteBufferAccessor accessor = new ByteBufferAccessor(buffer);
        header.write(accessor, cache, headerVersion);
        response.write(accessor, cache, apiVersion);
        if (buffer.hasRemaining()) {
            throw new IllegalStateException(apiKey + " v" + apiVersion + " response wrote " + buffer.position()
                    + " of " + buffer.capacity() + " bytes");
        }
        buffer.flip();
        return buffer;
    }

    private ResponseWriter() {
    }
}
