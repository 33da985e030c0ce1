package io.varve.broker.api.security;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.security.DelegationTokenSettings;
import io.varve.metadata.controller.QuorumController;
import io.varve.metadata.controller.security.DelegationTokenControl;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.DelegationTokenRecord;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.message.ExpireDelegationTokenRequestData;
import org.apache.kafka.common.message.ExpireDelegationTokenResponseData;
import org.apache.kafka.common.message.RenewDelegationTokenRequestData;
import org.apache.kafka.common.message.RenewDelegationTokenResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * RenewDelegationToken and ExpireDelegationToken on the active controller. Both name the token by its HMAC, as Kafka's
 * do: the token is the one of the image whose id the secret key signs to that HMAC (DELEGATION_TOKEN_NOT_FOUND when
 * none); {@link DelegationTokenControl} decides the rest.
 */
public final class ChangeDelegationTokenHandler implements ApiHandler {
    private final QuorumController controller;
    private final Supplier<MetadataImage> image;
    private final DelegationTokenSettings settings;
    private final LongSupplier wallClockMs;

    public ChangeDelegationTokenHandler(
            QuorumController controller,
            Supplier<MetadataImage> image,
            DelegationTokenSettings settings,
            LongSupplier wallClockMs) {
        this.controller = controller;
        this.image = image;
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
        boolean renew = request.data() instanceof RenewDelegationTokenRequestData;
        byte[] hmac = renew
                ? ((RenewDelegationTokenRequestData) request.body()).hmac()
                : ((ExpireDelegationTokenRequestData) request.body()).hmac();
        Optional<String> tokenId = image.get().delegationTokens().tokens().values().stream()
                .map(DelegationTokenRecord::tokenId)
                .filter(id -> settings.hmac().matches(id, hmac))
                .findFirst();
        if (tokenId.isEmpty()) {
            return DelegationTokenGate.answer(request, Errors.DELEGATION_TOKEN_NOT_FOUND);
        }
        String principal = request.principal().toString();
        long nowMs = wallClockMs.getAsLong();
        CompletableFuture<DelegationTokenControl.Expiry> decided = renew
                ? controller.renewDelegationToken(
                        tokenId.get(),
                        principal,
                        ((RenewDelegationTokenRequestData) request.body()).renewPeriodMs(),
                        nowMs)
                : controller.expireDelegationToken(
                        tokenId.get(),
                        principal,
                        ((ExpireDelegationTokenRequestData) request.body()).expiryTimePeriodMs(),
                        nowMs);
        return decided.thenApply(expiry -> renew
                ? new RenewDelegationTokenResponseData()
                        .setErrorCode(expiry.error().error().code())
                        .setExpiryTimestampMs(expiry.expiryTimestampMs())
                : new ExpireDelegationTokenResponseData()
                        .setErrorCode(expiry.error().error().code())
                        .setExpiryTimestampMs(expiry.expiryTimestampMs()));
    }
}
