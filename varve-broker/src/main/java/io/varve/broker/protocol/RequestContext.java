package io.varve.broker.protocol;

import io.varve.security.Principal;
import java.net.InetSocketAddress;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.AbstractRequest;

/**
 * A parsed request, where it came from and who sent it (the connection's authenticated principal). {@code data} is
 * the generated message class for the API.
 */
public record RequestContext(
        RequestHeaderData header,
        ApiKeys apiKey,
        short apiVersion,
        AbstractRequest request,
        String listenerName,
        InetSocketAddress clientAddress,
        long receivedNanos,
        Principal principal) {

    /** A request from an anonymous client (PLAINTEXT; forwarded requests until the Envelope carries a principal). */
    public RequestContext(
            RequestHeaderData header,
            ApiKeys apiKey,
            short apiVersion,
            AbstractRequest request,
            String listenerName,
            InetSocketAddress clientAddress,
            long receivedNanos) {
        this(header, apiKey, apiVersion, request, listenerName, clientAddress, receivedNanos, Principal.ANONYMOUS);
    }

    public ApiMessage data() {
        return request.data();
    }

    /** The API's own error response, every entry carrying the error of {@code cause}. */
    public ApiMessage errorResponse(Throwable cause) {
        return ErrorResponses.of(request, cause);
    }

    public int correlationId() {
        return header.correlationId();
    }

    public String clientId() {
        return header.clientId();
    }

    @SuppressWarnings("unchecked")
    public <T extends ApiMessage> T body() {
        return (T) request.data();
    }
}
