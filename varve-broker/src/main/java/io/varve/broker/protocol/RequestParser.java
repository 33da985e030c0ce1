package io.varve.broker.protocol;

import java.nio.ByteBuffer;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.AbstractRequest;

/**
 * Turns a request frame (without its 4-byte length) into a header and a generated message.
 * This and {@link ResponseWriter} are the only places that know how kafka-clients reads and writes bytes.
 */
public final class RequestParser {

    /** The header alone; throws {@link InvalidFrameException} when it cannot be read. */
    public static Parsed parseHeader(ByteBuffer frame) {
        if (frame.remaining() < 8) {
            throw new InvalidFrameException(
                    "request of " + frame.remaining() + " bytes is shorter than a request header");
        }
        short apiKeyId = frame.getShort(frame.position());
        short apiVersion = frame.getShort(frame.position() + 2);
        if (!ApiKeys.hasId(apiKeyId)) {
            throw new InvalidFrameException("unknown API key " + apiKeyId);
        }
        ApiKeys apiKey = ApiKeys.forId(apiKeyId);
        try {
            // throws for an id kafka-clients keeps without any version left (StopReplica, key 5, and a few more)
            short headerVersion = apiKey.requestHeaderVersion(apiVersion);
            RequestHeaderData header = new RequestHeaderData(new ByteBufferAccessor(frame), headerVersion);
            return new Parsed(header, apiKey, apiVersion, frame);
        } catch (RuntimeException e) {
            throw new InvalidFrameException(
                    "malformed request header for " + apiKey + " v" + apiVersion + ": " + e.getMessage());
        }
    }

    /** The body for a version the broker supports. */
    public static AbstractRequest parseBody(ApiKeys apiKey, short apiVersion, ByteBuffer body) {
        try {
            return AbstractRequest.parseRequest(apiKey, apiVersion, new ByteBufferAccessor(body)).request;
        } catch (RuntimeException e) {
            throw new InvalidFrameException("malformed " + apiKey + " v" + apiVersion + " request: " + e.getMessage());
        }
    }

    /** Header plus the buffer positioned at the body. */
    public record Parsed(RequestHeaderData header, ApiKeys apiKey, short apiVersion, ByteBuffer body) {}

    private RequestParser() {}
}
