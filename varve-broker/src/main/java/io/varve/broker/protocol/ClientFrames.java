package io.varve.broker.protocol;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * The client side of the wire seam, for the requests this node sends as a client (to the active controller):
 * request frames written from a header and a generated message, response frames read back into one, with the
 * error codes the response carries (what the sender retries on). Beside {@link RequestParser} and
 * {@link ResponseWriter}, the only places that know how kafka-clients reads and writes bytes.
 */
public final class ClientFrames {

    /** A response read back: its correlation id, its body and every error code in it. */
    public record Response(int correlationId, ApiMessage body, Set<Errors> errors) {}

    private ClientFrames() {}

    /** Header and body, without the 4-byte size (an Envelope carries a request this way). */
    public static ByteBuffer request(ApiKeys api, short version, int correlationId, String clientId, ApiMessage body) {
        RequestHeaderData header = new RequestHeaderData()
                .setRequestApiKey(api.id)
                .setRequestApiVersion(version)
                .setCorrelationId(correlationId)
                .setClientId(clientId);
        short headerVersion = api.requestHeaderVersion(version);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = header.size(cache, headerVersion) + body.size(cache, version);
        ByteBuffer buffer = ByteBuffer.allocate(size);
        ByteBufferAccessor out = new ByteBufferAccessor(buffer);
        header.write(out, cache, headerVersion);
        body.write(out, cache, version);
        return buffer.flip();
    }

    /** A request frame as it goes on the socket: 4-byte size, header, body. */
    public static ByteBuffer requestFrame(
            ApiKeys api, short version, int correlationId, String clientId, ApiMessage body) {
        ByteBuffer request = request(api, version, correlationId, clientId, body);
        ByteBuffer frame = ByteBuffer.allocate(4 + request.remaining());
        frame.putInt(request.remaining()).put(request);
        return frame.flip();
    }

    /** The correlation id of a response (header and body, without the size), without reading further. */
    public static int correlationId(ByteBuffer response) {
        return response.getInt(response.position());
    }

    /** Reads a response (header and body, without the size) to a request of {@code api} at {@code version}. */
    public static Response response(ApiKeys api, short version, ByteBuffer response) {
        ByteBufferAccessor in = new ByteBufferAccessor(response.duplicate());
        ResponseHeaderData header = new ResponseHeaderData(in, api.responseHeaderVersion(version));
        ApiMessage body = api.messageType.newResponse();
        body.read(in, version);
        return new Response(header.correlationId(), body, errors(api, version, body));
    }

    /** The error codes a response body carries (for answers made in this process). */
    public static Set<Errors> errors(ApiKeys api, short version, ApiMessage body) {
        Set<Errors> errors = EnumSet.noneOf(Errors.class);
        errors.addAll(AbstractResponse.parseResponse(api, new ByteBufferAccessor(serialized(body, version)), version)
                .errorCounts()
                .keySet());
        return errors;
    }

    /** A request body as a parsed request, for handing a message built here to a handler of this process. */
    public static AbstractRequest asRequest(ApiKeys api, short version, ApiMessage body) {
        return RequestParser.parseBody(api, version, serialized(body, version));
    }

    /** A response (header and body, without the size), as an Envelope carries it back. */
    public static ByteBuffer responseBytes(ApiKeys api, short version, int correlationId, ApiMessage body) {
        short headerVersion = api.responseHeaderVersion(version);
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = header.size(cache, headerVersion) + body.size(cache, version);
        ByteBuffer buffer = ByteBuffer.allocate(size);
        ByteBufferAccessor out = new ByteBufferAccessor(buffer);
        header.write(out, cache, headerVersion);
        body.write(out, cache, version);
        return buffer.flip();
    }

    private static ByteBuffer serialized(ApiMessage body, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer buffer = ByteBuffer.allocate(body.size(cache, version));
        body.write(new ByteBufferAccessor(buffer), cache, version);
        return buffer.flip();
    }
}
