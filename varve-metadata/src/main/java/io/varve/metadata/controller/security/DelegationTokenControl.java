package io.varve.metadata.controller.security;

import io.varve.metadata.controller.ControllerResult;
import io.varve.metadata.controller.ErrorReply;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.DelegationTokenRecord;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.RemoveDelegationTokenRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.common.protocol.Errors;

/**
 * Delegation tokens on the controller (CreateDelegationToken, RenewDelegationToken, ExpireDelegationToken and the
 * removal of expired tokens), with Kafka's rules:
 *
 * <ul>
 *   <li>create: the maximum lifetime is the request's when positive and not above {@code
 *       delegation.token.max.lifetime.ms}, else that setting; the token expires after {@code
 *       delegation.token.expiry.time.ms} or at its maximum, whichever is first;
 *   <li>renew: only the owner or a renewer (DELEGATION_TOKEN_OWNER_MISMATCH); the new expiry is now plus the period
 *       asked for, at most {@code delegation.token.expiry.time.ms} (that when the period is not positive), never past
 *       the maximum;
 *   <li>expire: the same principals; a negative period removes the token at once (the answer's expiry is that
 *       period), otherwise the expiry becomes now plus the period, never past the maximum;
 *   <li>a token past its expiry or its maximum can be neither renewed nor expired (DELEGATION_TOKEN_EXPIRED, checked
 *       before the principal), and the controller removes it at its next check.
 * </ul>
 *
 * <p>Authorization and the HMAC are the handlers' (they hold the authorizer and the secret key); what is left is to
 * decide against the image at {@code nowMs}, the wall clock's epoch milliseconds. Pure: no I/O, no threads.
 */
public final class DelegationTokenControl {

    /** {@code delegation.token.max.lifetime.ms} and {@code delegation.token.expiry.time.ms}. */
    public record Settings(long maxLifetimeMs, long expiryTimeMs) {
        public Settings {
            if (maxLifetimeMs <= 0 || expiryTimeMs <= 0) {
                throw new IllegalArgumentException(
                        "token lifetimes must be positive: " + maxLifetimeMs + ", " + expiryTimeMs);
            }
        }

        /** Kafka's defaults: seven days, one day. */
        public static Settings defaults() {
            return new Settings(7 * 24 * 3_600_000L, 24 * 3_600_000L);
        }
    }

    /** The token issued, or the error and no token. */
    public record Created(ErrorReply error, DelegationTokenRecord token) {}

    /** The token's expiry after a renewal or expiry, or the error (expiry then -1). */
    public record Expiry(ErrorReply error, long expiryTimestampMs) {
        static Expiry failed(Errors error, String message) {
            return new Expiry(ErrorReply.of(error, message), -1);
        }
    }

    private final Settings settings;
    private final Supplier<String> tokenIds;

    /** @param tokenIds fresh, unguessable token ids */
    public DelegationTokenControl(Settings settings, Supplier<String> tokenIds) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.tokenIds = Objects.requireNonNull(tokenIds, "tokenIds");
    }

    public Settings settings() {
        return settings;
    }

    /**
     * @param owner             the token's owner ({@code Type:name})
     * @param requester         the principal that asked for it
     * @param maxLifetimeMs     the request's maximum lifetime; 0 or less: the configured one
     */
    public ControllerResult<Created> create(
            MetadataImage image,
            String owner,
            String requester,
            List<String> renewers,
            long maxLifetimeMs,
            long nowMs) {
        long lifetimeMs =
                maxLifetimeMs > 0 ? Math.min(maxLifetimeMs, settings.maxLifetimeMs()) : settings.maxLifetimeMs();
        long maxTimestampMs = saturatedAdd(nowMs, lifetimeMs);
        long expiryTimestampMs = Math.min(maxTimestampMs, saturatedAdd(nowMs, settings.expiryTimeMs()));
        String tokenId = tokenIds.get();
        if (image.delegationTokens().token(tokenId).isPresent()) {
            throw new IllegalStateException("token id generated twice: " + tokenId);
        }
        DelegationTokenRecord token = new DelegationTokenRecord(
                tokenId, owner, requester, renewers, nowMs, maxTimestampMs, expiryTimestampMs);
        return ControllerResult.of(List.of(token), new Created(ErrorReply.NONE, token));
    }

    /** @param renewPeriodMs how long from now the token should stay valid, at most (and, not positive, exactly) {@code expiry.time.ms} */
    public ControllerResult<Expiry> renew(
            MetadataImage image, String tokenId, String principal, long renewPeriodMs, long nowMs) {
        Optional<Expiry> refused = refused(image, tokenId, principal, nowMs);
        if (refused.isPresent()) {
            return ControllerResult.withoutRecords(refused.get());
        }
        DelegationTokenRecord token = image.delegationTokens().token(tokenId).orElseThrow();
        long periodMs = renewPeriodMs > 0 ? Math.min(renewPeriodMs, settings.expiryTimeMs()) : settings.expiryTimeMs();
        long expiryMs = Math.min(token.maxTimestampMs(), saturatedAdd(nowMs, periodMs));
        return ControllerResult.of(List.of(token.withExpiry(expiryMs)), new Expiry(ErrorReply.NONE, expiryMs));
    }

    /** @param expiryPeriodMs how long from now the token stays valid; negative: it is removed now */
    public ControllerResult<Expiry> expire(
            MetadataImage image, String tokenId, String principal, long expiryPeriodMs, long nowMs) {
        Optional<Expiry> refused = refused(image, tokenId, principal, nowMs);
        if (refused.isPresent()) {
            return ControllerResult.withoutRecords(refused.get());
        }
        if (expiryPeriodMs < 0) {
            return ControllerResult.of(
                    List.of(new RemoveDelegationTokenRecord(tokenId)), new Expiry(ErrorReply.NONE, expiryPeriodMs));
        }
        DelegationTokenRecord token = image.delegationTokens().token(tokenId).orElseThrow();
        long expiryMs = Math.min(token.maxTimestampMs(), saturatedAdd(nowMs, expiryPeriodMs));
        return ControllerResult.of(List.of(token.withExpiry(expiryMs)), new Expiry(ErrorReply.NONE, expiryMs));
    }

    /** The tokens whose expiry has passed, removed; the reply is their number. */
    public ControllerResult<Integer> removeExpired(MetadataImage image, long nowMs) {
        List<MetadataRecord> removals = new ArrayList<>();
        for (DelegationTokenRecord token : image.delegationTokens().tokens().values()) {
            if (expired(token, nowMs)) {
                removals.add(new RemoveDelegationTokenRecord(token.tokenId()));
            }
        }
        return ControllerResult.of(removals, removals.size());
    }

    /** Past its expiry or its maximum lifetime at {@code nowMs}: it authenticates nobody any more. */
    public static boolean expired(DelegationTokenRecord token, long nowMs) {
        return token.expiryTimestampMs() < nowMs || token.maxTimestampMs() < nowMs;
    }

    private static Optional<Expiry> refused(MetadataImage image, String tokenId, String principal, long nowMs) {
        Optional<DelegationTokenRecord> found =
                tokenId == null ? Optional.empty() : image.delegationTokens().token(tokenId);
        if (found.isEmpty()) {
            return Optional.of(
                    Expiry.failed(Errors.DELEGATION_TOKEN_NOT_FOUND, "Delegation Token is not found on server."));
        }
        if (expired(found.get(), nowMs)) {
            return Optional.of(Expiry.failed(Errors.DELEGATION_TOKEN_EXPIRED, "Delegation Token is expired."));
        }
        if (!found.get().mayRenew(principal)) {
            return Optional.of(Expiry.failed(
                    Errors.DELEGATION_TOKEN_OWNER_MISMATCH, "Specified Principal is not valid Owner/Renewer."));
        }
        return Optional.empty();
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? (b < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : sum;
    }
}
