package io.varve.broker.api.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.api.ApiRegistry;
import io.varve.broker.protocol.ClientFrames;
import io.varve.broker.protocol.PrincipalBytes;
import io.varve.broker.protocol.RequestContext;
import io.varve.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.EnvelopeRequestData;
import org.apache.kafka.common.message.EnvelopeResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** The Envelope's inner request runs as the client's principal, through the controller's authorization. */
class EnvelopeHandlerTest {
    private final List<RequestContext> handled = new ArrayList<>();
    private final List<Principal> authorizedAs = new ArrayList<>();
    private final ApiRegistry registry = new ApiRegistry().register(ApiKeys.CREATE_TOPICS, 2, 7, request -> {
        handled.add(request);
        return CompletableFuture.completedFuture(new CreateTopicsResponseData());
    });

    private RequestContext envelope(byte[] principal) {
        EnvelopeRequestData data = new EnvelopeRequestData()
                .setRequestData(ClientFrames.request(
                        ApiKeys.CREATE_TOPICS, (short) 7, 5, "admin", new CreateTopicsRequestData()))
                .setRequestPrincipal(principal)
                .setClientHostAddress(new byte[] {127, 0, 0, 1});
        return new RequestContext(
                new RequestHeaderData().setRequestApiKey(ApiKeys.ENVELOPE.id).setClientId("varve-broker-2"),
                ApiKeys.ENVELOPE,
                (short) 0,
                ClientFrames.asRequest(ApiKeys.ENVELOPE, (short) 0, data),
                "CONTROLLER",
                null,
                System.nanoTime(),
                Principal.user("broker"));
    }

    private EnvelopeHandler handler() {
        return new EnvelopeHandler(registry, () -> (request, next) -> {
            authorizedAs.add(request.principal());
            return next.handle(request);
        });
    }

    @Test
    void theInnerRequestIsAuthorizedAndHandledAsTheClientNotTheForwardingBroker() throws Exception {
        EnvelopeResponseData answer = (EnvelopeResponseData) handler()
                .handle(envelope(PrincipalBytes.write(Principal.user("alice"))))
                .get();
        assertThat(answer.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(authorizedAs).containsExactly(Principal.user("alice"));
        assertThat(handled.get(0).principal()).isEqualTo(Principal.user("alice"));
        assertThat(handled.get(0).clientAddress().getAddress().getHostAddress()).isEqualTo("127.0.0.1");
    }

    @Test
    void aPrincipalThatCannotBeReadIsPrincipalDeserializationFailureAndNothingRuns() throws Exception {
        for (byte[] bad : new byte[][] {null, new byte[0], new byte[] {0, 9, 1}, new byte[] {0, 0, 5}}) {
            EnvelopeResponseData answer =
                    (EnvelopeResponseData) handler().handle(envelope(bad)).get();
            assertThat(answer.errorCode()).isEqualTo(Errors.PRINCIPAL_DESERIALIZATION_FAILURE.code());
        }
        assertThat(handled).isEmpty();
        assertThat(authorizedAs).isEmpty();
    }

    @Test
    void principalBytesAreKafkasVersionPrefixedDefaultPrincipalData() {
        byte[] bytes = PrincipalBytes.write(new Principal("User", "CN=node,O=Varve"));
        assertThat(bytes[0]).isZero();
        assertThat(bytes[1]).isZero(); // version 0
        assertThat(PrincipalBytes.read(bytes)).isEqualTo(new Principal("User", "CN=node,O=Varve"));
        // a token's owner stays marked as one across the Envelope (it may not ask for more tokens)
        assertThat(PrincipalBytes.read(PrincipalBytes.write(Principal.tokenOwner(Principal.user("alice"))))
                        .tokenAuthenticated())
                .isTrue();
    }
}
