package io.varve.broker.protocol;

import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiError;

/**
 * A request's own error response, every entry carrying the error of a cause: what a refused request (no
 * authorization, a SASL connection's request before it authenticated) and a failed handler answer.
 *
 * <p>kafka-clients builds most of them ({@code AbstractRequest.getErrorResponse}); where it cannot for a request that is
 * valid on the wire, Varve builds the answer itself. Found by {@code RequestDecodingFuzzTest}: DescribeUserScramCredentials
 * with a null user list ("describe every user", as the schema allows) made kafka-clients throw, so a principal without
 * DESCRIBE on the cluster had its connection closed instead of getting CLUSTER_AUTHORIZATION_FAILED. Any other request
 * whose error response cannot be built is treated as a malformed frame (the connection is closed, one log line).
 */
public final class ErrorResponses {

    public static ApiMessage of(AbstractRequest request, Throwable cause) {
        if (request.data() instanceof DescribeUserScramCredentialsRequestData scram && scram.users() == null) {
            ApiError error = ApiError.fromThrowable(cause);
            return new DescribeUserScramCredentialsResponseData()
                    .setErrorCode(error.error().code())
                    .setErrorMessage(error.message());
        }
        try {
            return request.getErrorResponse(0, cause).data();
        } catch (RuntimeException e) {
            throw new InvalidFrameException("no error response can be built for this " + request.apiKey() + " v"
                    + request.version() + " request: " + e);
        }
    }

    private ErrorResponses() {}
}
