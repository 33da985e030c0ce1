package io.varve.broker.api.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.ClientFrames;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.security.DelegationTokenSettings;
import io.varve.broker.security.SecurityProtocol;
import io.varve.metadata.image.MetadataImage;
import io.varve.security.Principal;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.common.message.CreateDelegationTokenRequestData;
import org.apache.kafka.common.message.CreateDelegationTokenRequestData.CreatableRenewers;
import org.apache.kafka.common.message.CreateDelegationTokenResponseData;
import org.apache.kafka.common.message.DescribeDelegationTokenRequestData;
import org.apache.kafka.common.message.DescribeDelegationTokenResponseData;
import org.apache.kafka.common.message.RenewDelegationTokenRequestData;
import org.apache.kafka.common.message.RenewDelegationTokenResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class DelegationTokenGateTest {
    private static final Map<String, SecurityProtocol> PROTOCOLS = Map.of(
            "PLAINTEXT", SecurityProtocol.PLAINTEXT,
            "SSL", SecurityProtocol.SSL,
            "SASL_PLAINTEXT", SecurityProtocol.SASL_PLAINTEXT);
    private static final Function<String, SecurityProtocol> PROTOCOL_OF = PROTOCOLS::get;
    private static final DelegationTokenSettings ON =
            DelegationTokenSettings.from(Map.of("delegation.token.secret.key", "k"));

    private final AtomicInteger forwarded = new AtomicInteger();
    private final ApiHandler controller = request -> {
        forwarded.incrementAndGet();
        return CompletableFuture.completedFuture(new RenewDelegationTokenResponseData());
    };

    private static RequestContext request(ApiKeys api, short version, ApiMessage data, String listener, Principal who) {
        return new RequestContext(
                new RequestHeaderData()
                        .setRequestApiKey(api.id)
                        .setRequestApiVersion(version)
                        .setClientId("t"),
                api,
                version,
                ClientFrames.asRequest(api, version, data),
                listener,
                null,
                0,
                who);
    }

    private static RequestContext renew(String listener, Principal who) {
        return request(
                ApiKeys.RENEW_DELEGATION_TOKEN,
                (short) 2,
                new RenewDelegationTokenRequestData().setHmac(new byte[] {1}),
                listener,
                who);
    }

    private static short errorOf(CompletableFuture<ApiMessage> answer) {
        ApiMessage m = answer.join();
        if (m instanceof CreateDelegationTokenResponseData c) {
            return c.errorCode();
        }
        if (m instanceof DescribeDelegationTokenResponseData d) {
            return d.errorCode();
        }
        return ((RenewDelegationTokenResponseData) m).errorCode();
    }

    @Test
    void withoutASecretKeyEveryTokenApiAnswersAuthDisabled() {
        DelegationTokenGate gate =
                new DelegationTokenGate(controller, DelegationTokenSettings.from(Map.of()), PROTOCOL_OF, null);
        assertThat(errorOf(gate.handle(renew("SASL_PLAINTEXT", Principal.user("alice")))))
                .isEqualTo(Errors.DELEGATION_TOKEN_AUTH_DISABLED.code());
        DescribeDelegationTokenHandler describe = new DescribeDelegationTokenHandler(
                () -> MetadataImage.EMPTY, DelegationTokenSettings.from(Map.of()), PROTOCOL_OF, null);
        assertThat(errorOf(describe.handle(request(
                        ApiKeys.DESCRIBE_DELEGATION_TOKEN,
                        (short) 3,
                        new DescribeDelegationTokenRequestData().setOwners(null),
                        "SASL_PLAINTEXT",
                        Principal.user("alice")))))
                .isEqualTo(Errors.DELEGATION_TOKEN_AUTH_DISABLED.code());
        assertThat(forwarded).hasValue(0);
    }

    @Test
    void plaintextOneWayTlsAndTokenConnectionsMayNotAskForTokens() {
        DelegationTokenGate gate = new DelegationTokenGate(controller, ON, PROTOCOL_OF, null);
        short notAllowed = Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED.code();
        assertThat(errorOf(gate.handle(renew("PLAINTEXT", Principal.ANONYMOUS))))
                .isEqualTo(notAllowed);
        assertThat(errorOf(gate.handle(renew("SSL", Principal.ANONYMOUS)))).isEqualTo(notAllowed);
        assertThat(errorOf(gate.handle(renew("SASL_PLAINTEXT", Principal.tokenOwner(Principal.user("alice"))))))
                .isEqualTo(notAllowed);
        assertThat(forwarded).hasValue(0);
        gate.handle(renew("SSL", Principal.user("alice"))).join(); // a client certificate's principal may
        gate.handle(renew("SASL_PLAINTEXT", Principal.user("alice"))).join();
        assertThat(forwarded).hasValue(2);
    }

    @Test
    void theControllerRefusesATokenRequestThatReachedItWithoutItsPrincipal() {
        // an Envelope that does not carry the client's principal must not issue a token to User:ANONYMOUS
        CreateDelegationTokenHandler create = new CreateDelegationTokenHandler(null, ON, () -> 0L);
        CreateDelegationTokenRequestData data = new CreateDelegationTokenRequestData().setMaxLifetimeMs(-1);
        assertThat(errorOf(create.handle(
                        request(ApiKeys.CREATE_DELEGATION_TOKEN, (short) 3, data, "CONTROLLER", Principal.ANONYMOUS))))
                .isEqualTo(Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED.code());
        ChangeDelegationTokenHandler change =
                new ChangeDelegationTokenHandler(null, () -> MetadataImage.EMPTY, ON, () -> 0L);
        assertThat(errorOf(change.handle(renew("CONTROLLER", Principal.ANONYMOUS))))
                .isEqualTo(Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED.code());
        assertThat(errorOf(change.handle(renew("CONTROLLER", Principal.user("alice")))))
                .isEqualTo(Errors.DELEGATION_TOKEN_NOT_FOUND.code());
    }

    @Test
    void renewersMustBeUsers() {
        DelegationTokenGate gate = new DelegationTokenGate(controller, ON, PROTOCOL_OF, null);
        CreateDelegationTokenRequestData data = new CreateDelegationTokenRequestData()
                .setOwnerPrincipalType(null)
                .setOwnerPrincipalName(null)
                .setRenewers(List.of(
                        new CreatableRenewers().setPrincipalType("Group").setPrincipalName("ops")))
                .setMaxLifetimeMs(-1);
        assertThat(errorOf(gate.handle(request(
                        ApiKeys.CREATE_DELEGATION_TOKEN, (short) 3, data, "SASL_PLAINTEXT", Principal.user("alice")))))
                .isEqualTo(Errors.INVALID_PRINCIPAL_TYPE.code());
        assertThat(forwarded).hasValue(0);
    }
}
