package io.varve.broker.security;

import io.varve.broker.api.ApiRegistry;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * SaslHandshake (v0, v1) and SaslAuthenticate (v0 to v2) in the API registry, advertised on every listener as Kafka
 * does. Before authentication on a SASL listener the dispatcher hands them to {@link SaslAuthenticator}; what reaches
 * these handlers came on a listener without SASL, or is a SaslAuthenticate after authentication completed with no
 * re-authentication (KIP-368) begun by a SaslHandshake, and gets ILLEGAL_SASL_STATE.
 */
public final class SaslApis {

    public static void register(ApiRegistry registry) {
        registry.register(
                        ApiKeys.SASL_HANDSHAKE,
                        0,
                        1,
                        request -> CompletableFuture.completedFuture(
                                new SaslHandshakeResponseData().setErrorCode(Errors.ILLEGAL_SASL_STATE.code())))
                .register(
                        ApiKeys.SASL_AUTHENTICATE,
                        0,
                        2,
                        request -> CompletableFuture.completedFuture(new SaslAuthenticateResponseData()
                                .setErrorCode(Errors.ILLEGAL_SASL_STATE.code())
                                .setErrorMessage("SaslAuthenticate on a connection that needs no SASL exchange"
                                        + " (not a SASL listener, or already authenticated)")));
    }

    private SaslApis() {}
}
