package io.varve.broker.api.security;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.security.DelegationTokenSettings;
import io.varve.metadata.controller.QuorumController;
import io.varve.metadata.record.DelegationTokenRecord;
import io.varve.security.Principal;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.apache.kafka.common.message.CreateDelegationTokenRequestData;
import org.apache.kafka.common.message.CreateDelegationTokenResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * CreateDelegationToken on the active controller (the broker has checked the caller, {@link DelegationTokenGate}):
 * the owner is the one named, else the caller; the caller is the requester. The token is a metadata record; the
 * answer carries its HMAC, derived from the secret key.
 */
public final class CreateDelegationTokenHandler implements ApiHandler {
    private final QuorumController controller;
    private final DelegationTokenSettings settings;
    private final LongSupplier wallClockMs;

    public CreateDelegationTokenHandler(
            QuorumController controller, DelegationTokenSettings settings, LongSupplier wallClockMs) {
        this.controller = controller;
        this.settings = settings;
        this.wallClockMs = wallClockMs;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        if (!settings.enabled()) {
            return DelegationTokenGate.answer(request, Errors.DELEGATION_TOKEN_AUTH_DISABLED);
        }
        if (DelegationTokenGate.withoutPrincipal(request)) {
            return DelegationTokenGate.answer(request, Errors.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED);
        }
        CreateDelegationTokenRequestData data = request.body();
        Principal requester = request.principal();
        Principal owner =
                data.ownerPrincipalName() == null || data.ownerPrincipalName().isEmpty()
                        ? requester
                        : new Principal(data.ownerPrincipalType(), data.ownerPrincipalName());
        List<String> renewers = data.renewers().stream()
                .map(r -> new Principal(r.principalType(), r.principalName()).toString())
                .toList();
        return controller
                .createDelegationToken(
                        owner.toString(), requester.toString(), renewers, data.maxLifetimeMs(), wallClockMs.getAsLong())
                .thenApply(created -> {
                    DelegationTokenRecord token = created.token();
                    return new CreateDelegationTokenResponseData()
                            .setErrorCode(Errors.NONE.code())
                            .setPrincipalType(owner.type())
                            .setPrincipalName(owner.name())
                            .setTokenRequesterPrincipalType(requester.type())
                            .setTokenRequesterPrincipalName(requester.name())
                            .setIssueTimestampMs(token.issueTimestampMs())
                            .setExpiryTimestampMs(token.expiryTimestampMs())
                            .setMaxTimestampMs(token.maxTimestampMs())
                            .setTokenId(token.tokenId())
                            .setHmac(settings.hmac().of(token.tokenId()));
                });
    }
}
