package io.varve.broker.api.security;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.security.BrokerAuthorizer;
import io.varve.broker.security.DelegationTokenSettings;
import io.varve.broker.security.SecurityProtocol;
import io.varve.security.Principal;
import io.varve.security.authorizer.AclOperation;
import io.varve.security.authorizer.ResourceType;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.common.message.CreateDelegationTokenRequestData;
import org.apache.kafka.common.message.CreateDelegationTokenResponseData;
import org.apache.kafka.common.message.ExpireDelegationTokenResponseData;
import org.apache.kafka.common.message.RenewDelegationTokenResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * The broker's checks of CreateDelegationToken, RenewDelegationToken and ExpireDelegationToken before they go to the
 * active controller, as Kafka's broker makes them: tokens must be on (DELEGATION_TOKEN_AUTH_DISABLED); no token
 * request over PLAINTEXT, one-way TLS or a connection that itself authenticated with a token
 * (DELEGATION_TOKEN_REQUEST_NOT_ALLOWED); a token for an owner other than the caller needs CREATE_TOKENS on that
 * {@code USER} (DELEGATION_TOKEN_AUTHORIZATION_FAILED); renewers are {@code User} principals
 * (INVALID_PRINCIPAL_TYPE). Who may renew or expire a token the controller decides.
 */
public final class DelegationTokenGate implements ApiHandler {
    private final ApiHandler controller;
    private final DelegationTokenSettings settings;
    private final Function<String, SecurityProtocol> listenerProtocols;
    /** Null without an authorizer: everyone may do anything. */
    private final BrokerAuthorizer authorizer;

    public DelegationTokenGate(
            ApiHandler controller,
            DelegationTokenSettings settings,
            Function<String, SecurityProtocol> listenerProtocols,
            BrokerAuthorizer authorizer) {
        this.controller = controller;
        this.settings = settings;
        this.listenerProtocols = listenerProtocols;
        this.authorizer = authorizer;
    }

    /**
     * Kafka's rule: token requests need a connection whose principal was proven by SASL or a client certificate, and
     * not by a token.
     */
    static boolean tokenRequestsAllowed(RequestContext request, Function<String, SecurityProtocol> listenerProtocols) {
        Principal principal = request.principal();
        SecurityProtocol protocol = listenerProtocols.apply(request.listenerName());
        return !principal.tokenAuthenticated()
                && protocol != SecurityProtocol.PLAINTEXT
                && !(protocol == SecurityProtocol.SSL && principal.equals(Principal.ANONYMOUS));
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        if (!settings.enabled()) {
            return answer(request, Errors.DELEGATION_TOKEN_AUTH_DISABLED);
        }
        if (!tokenRequestsAllowed(request, listenerProtocols)) {
            return answer(request, Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED);
        }
        if (request.data() instanceof CreateDelegationTokenRequestData create) {
            boolean foreignOwner = create.ownerPrincipalName() != null
                    && !create.ownerPrincipalName().isEmpty();
            if (create.renewers().stream().anyMatch(r -> !Principal.USER_TYPE.equals(r.principalType()))) {
                return answer(request, Errors.INVALID_PRINCIPAL_TYPE);
            }
            if (foreignOwner) {
                Principal owner = new Principal(create.ownerPrincipalType(), create.ownerPrincipalName());
                if (!owner.equals(request.principal())
                        && authorizer != null
                        && !authorizer.authorize(
                                request, AclOperation.CREATE_TOKENS, ResourceType.USER, owner.toString())) {
                    return answer(request, Errors.DELEGATION_TOKEN_AUTHORIZATION_FAILED);
                }
            }
        }
        return controller.handle(request);
    }

    /**
     * On the controller: a token request whose principal is anonymous cannot be decided (the token's owner, requester
     * and renew rights hang on it). Brokers never forward one from an anonymous connection, so it is a request that
     * reached the controller without its principal: an Envelope from a broker that does not carry it yet. Refused
     * rather than issued to User:ANONYMOUS.
     */
    static boolean withoutPrincipal(RequestContext request) {
        return request.principal().equals(Principal.ANONYMOUS);
    }

    /** The API's response with {@code error} and nothing else, as Kafka answers a refused token request. */
    static CompletableFuture<ApiMessage> answer(RequestContext request, Errors error) {
        ApiMessage response =
                switch (request.apiKey()) {
                    case CREATE_DELEGATION_TOKEN -> {
                        Principal caller = request.principal();
                        yield new CreateDelegationTokenResponseData()
                                .setErrorCode(error.code())
                                .setPrincipalType(caller.type())
                                .setPrincipalName(caller.name())
                                .setTokenRequesterPrincipalType(caller.type())
                                .setTokenRequesterPrincipalName(caller.name())
                                .setTokenId("")
                                .setHmac(new byte[0]);
                    }
                    case RENEW_DELEGATION_TOKEN -> new RenewDelegationTokenResponseData().setErrorCode(error.code());
                    case EXPIRE_DELEGATION_TOKEN -> new ExpireDelegationTokenResponseData().setErrorCode(error.code());
                    default -> request.errorResponse(error.exception());
                };
        return CompletableFuture.completedFuture(response);
    }
}
