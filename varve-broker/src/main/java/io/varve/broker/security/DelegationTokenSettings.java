package io.varve.broker.security;

import io.varve.metadata.controller.security.DelegationTokenControl;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.DelegationTokenRecord;
import io.varve.security.Principal;
import io.varve.security.sasl.DelegationTokenCredential;
import io.varve.security.sasl.DelegationTokenCredentials;
import io.varve.security.sasl.DelegationTokenHmac;
import io.varve.security.sasl.ScramCredential;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.config.ConfigException;

/**
 * Kafka's {@code delegation.token.*} keys. Tokens are on only with {@code delegation.token.secret.key} (or its old
 * name {@code delegation.token.master.key}); without it the token APIs answer DELEGATION_TOKEN_AUTH_DISABLED and a
 * {@code tokenauth=true} SCRAM client is refused. Every node of a cluster needs the same key: a node derives each
 * token's HMAC from it.
 *
 * @param hmac                  null when tokens are off
 * @param lifetimes             {@code delegation.token.max.lifetime.ms} (7 days), {@code
 *                              delegation.token.expiry.time.ms} (1 day)
 * @param expiryCheckIntervalMs {@code delegation.token.expiry.check.interval.ms} (1 hour): how often the active
 *                              controller removes expired tokens
 */
public record DelegationTokenSettings(
        DelegationTokenHmac hmac, DelegationTokenControl.Settings lifetimes, long expiryCheckIntervalMs) {

    static final String SECRET_KEY = "delegation.token.secret.key";
    static final String OLD_SECRET_KEY = "delegation.token.master.key";
    static final String MAX_LIFETIME_KEY = "delegation.token.max.lifetime.ms";
    static final String EXPIRY_TIME_KEY = "delegation.token.expiry.time.ms";
    static final String EXPIRY_CHECK_KEY = "delegation.token.expiry.check.interval.ms";
    private static final Set<String> KEYS =
            Set.of(SECRET_KEY, OLD_SECRET_KEY, MAX_LIFETIME_KEY, EXPIRY_TIME_KEY, EXPIRY_CHECK_KEY);

    public static final DelegationTokenSettings DISABLED =
            new DelegationTokenSettings(null, DelegationTokenControl.Settings.defaults(), 3_600_000L);

    /** Whether {@code key} is one of these (so BrokerConfig does not report it as unknown). */
    public static boolean owns(String key) {
        return KEYS.contains(key);
    }

    public static DelegationTokenSettings from(Map<String, String> originals) {
        String secret = originals.get(SECRET_KEY);
        if (secret == null) {
            secret = originals.get(OLD_SECRET_KEY);
        }
        long maxLifetimeMs = positive(originals, MAX_LIFETIME_KEY, 7 * 24 * 3_600_000L);
        long expiryTimeMs = positive(originals, EXPIRY_TIME_KEY, 24 * 3_600_000L);
        long checkMs = positive(originals, EXPIRY_CHECK_KEY, 3_600_000L);
        DelegationTokenHmac hmac = secret == null || secret.isEmpty() ? null : new DelegationTokenHmac(secret);
        return new DelegationTokenSettings(
                hmac, new DelegationTokenControl.Settings(maxLifetimeMs, expiryTimeMs), checkMs);
    }

    private static long positive(Map<String, String> originals, String key, long defaultValue) {
        String text = originals.get(key);
        if (text == null) {
            return defaultValue;
        }
        try {
            long value = Long.parseLong(text.trim());
            if (value >= 1) {
                return value;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new ConfigException("Invalid value '" + text + "' for configuration " + key
                + ": expected a number of milliseconds, at least 1.");
    }

    public boolean enabled() {
        return hmac != null;
    }

    /**
     * The tokens a {@code tokenauth=true} SCRAM client authenticates against: the image's, until their expiry on the
     * wall clock (the controller's removal may come later); null when tokens are off. A token's SCRAM credential
     * (4096 PBKDF2 rounds over its HMAC) is derived once per mechanism and kept while the token is in the image, as
     * Kafka's token cache does, so a login costs what a user's SCRAM login costs.
     */
    public DelegationTokenCredentials credentials(Supplier<MetadataImage> image, LongSupplier wallClockMs) {
        if (!enabled()) {
            return null;
        }
        Map<String, ScramCredential> derived = new ConcurrentHashMap<>();
        return (tokenId, mechanism) -> {
            Map<String, DelegationTokenRecord> tokens =
                    image.get().delegationTokens().tokens();
            DelegationTokenRecord token = tokens.get(tokenId);
            if (derived.size() > 2 * tokens.size()) {
                // bounded by the tokens that exist: drop the credentials of removed ones
                derived.keySet().removeIf(key -> !tokens.containsKey(key.substring(key.indexOf('/') + 1)));
            }
            if (token == null || DelegationTokenControl.expired(token, wallClockMs.getAsLong())) {
                return Optional.empty();
            }
            ScramCredential credential = derived.computeIfAbsent(
                    mechanism.mechanismName() + "/" + tokenId, key -> hmac.scramCredential(tokenId, mechanism));
            return Optional.of(new DelegationTokenCredential(
                    credential, Principal.parse(token.owner()), token.expiryTimestampMs()));
        };
    }
}
