package io.varve.broker.protocol;

import java.net.InetSocketAddress;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.AbstractRequest;

/** A parsed request and where it came from. {@code data} is the generated message class for the API. */
public record RequestContext(
        RequestHeaderData header,
        ApiKeys apiKey,
        short apiVersion,
        AbstractRequest request,
        String listenerName,
        InetSocketAddress clientAddress,
        long receivedNanos) {

    public ApiMessage data() {
        return request.data();
    }

    /** The API's own error response, every entry carrying the error of {@code cause}. */
    public ApiMessage errorResponse(Throwable cause) {
        return request.getErrorResponse(0, cause).data();
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
