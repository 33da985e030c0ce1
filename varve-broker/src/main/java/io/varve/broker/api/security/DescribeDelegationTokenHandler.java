package io.varve.broker.api.security;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.security.BrokerAuthorizer;
import io.varve.broker.security.DelegationTokenSettings;
import io.varve.broker.security.SecurityProtocol;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.DelegationTokenRecord;
import io.varve.security.Principal;
import io.varve.security.authorizer.AclOperation;
import io.varve.security.authorizer.ResourceType;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.message.DescribeDelegationTokenRequestData;
import org.apache.kafka.common.message.DescribeDelegationTokenResponseData;
import org.apache.kafka.common.message.DescribeDelegationTokenResponseData.DescribedDelegationToken;
import org.apache.kafka.common.message.DescribeDelegationTokenResponseData.DescribedDelegationTokenRenewer;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeDelegationToken from this broker's image, as Kafka answers it: the tokens of the owners asked for (a token
 * matches an owner who owns, requested or may renew it; no list: every token; an empty list: none), each only if the
 * caller owns, requested or may renew it, has DESCRIBE on the token ({@code DELEGATION_TOKEN} resource, its id) or
 * DESCRIBE_TOKENS on its owner ({@code USER} resource). The HMAC is derived here from the secret key.
 */
public final class DescribeDelegationTokenHandler implements ApiHandler {
    private final Supplier<MetadataImage> image;
    private final DelegationTokenSettings settings;
    private final Function<String, SecurityProtocol> listenerProtocols;
    /** Null without an authorizer: everyone sees every token. */
    private final BrokerAuthorizer authorizer;

    public DescribeDelegationTokenHandler(
            Supplier<MetadataImage> image,
            DelegationTokenSettings settings,
            Function<String, SecurityProtocol> listenerProtocols,
            BrokerAuthorizer authorizer) {
        this.image = image;
        this.settings = settings;
        this.listenerProtocols = listenerProtocols;
        this.authorizer = authorizer;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        if (!settings.enabled()) {
            return DelegationTokenGate.answer(request, Errors.DELEGATION_TOKEN_AUTH_DISABLED);
        }
        if (!DelegationTokenGate.tokenRequestsAllowed(request, listenerProtocols)) {
            return DelegationTokenGate.answer(request, Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED);
        }
        DescribeDelegationTokenRequestData data = request.body();
        List<String> owners = data.owners() == null
                ? null
                : data.owners().stream()
                        .map(o -> new Principal(o.principalType(), o.principalName()).toString())
                        .toList();
        String caller = request.principal().toString();
        DescribeDelegationTokenResponseData response =
                new DescribeDelegationTokenResponseData().setErrorCode(Errors.NONE.code());
        for (DelegationTokenRecord token :
                image.get().delegationTokens().tokens().values()) {
            if (owners != null && owners.stream().noneMatch(token::ownerOrRenewer)) {
                continue;
            }
            if (token.ownerOrRenewer(caller) || mayDescribe(request, token)) {
                response.tokens().add(described(token));
            }
        }
        return CompletableFuture.completedFuture(response);
    }

    private boolean mayDescribe(RequestContext request, DelegationTokenRecord token) {
        return authorizer == null
                || authorizer.authorize(request, AclOperation.DESCRIBE, ResourceType.DELEGATION_TOKEN, token.tokenId())
                || authorizer.authorize(request, AclOperation.DESCRIBE_TOKENS, ResourceType.USER, token.owner());
    }

    private DescribedDelegationToken described(DelegationTokenRecord token) {
        Principal owner = Principal.parse(token.owner());
        Principal requester = Principal.parse(token.requester());
        return new DescribedDelegationToken()
                .setPrincipalType(owner.type())
                .setPrincipalName(owner.name())
                .setTokenRequesterPrincipalType(requester.type())
                .setTokenRequesterPrincipalName(requester.name())
                .setIssueTimestamp(token.issueTimestampMs())
                .setExpiryTimestamp(token.expiryTimestampMs())
                .setMaxTimestamp(token.maxTimestampMs())
                .setTokenId(token.tokenId())
                .setHmac(settings.hmac().of(token.tokenId()))
                .setRenewers(token.renewers().stream()
                        .map(Principal::parse)
                        .map(r -> new DescribedDelegationTokenRenewer()
                                .setPrincipalType(r.type())
                                .setPrincipalName(r.name()))
                        .toList());
    }
}
