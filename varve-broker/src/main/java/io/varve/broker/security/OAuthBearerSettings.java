package io.varve.broker.security;

import io.varve.broker.config.ConfigException;
import io.varve.security.oauthbearer.JwtValidator;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A listener's OAUTHBEARER validation, from Kafka's keys: where the JWK set is ({@code
 * sasl.oauthbearer.jwks.endpoint.url}: {@code https:}, {@code http:} or {@code file:}), how often it is read again,
 * and what a token must say ({@link JwtValidator.Settings}). Kafka validates unsecured tokens unless the listener
 * names its {@code OAuthBearerValidatorCallbackHandler}; Varve validates signed tokens only, so it requires that
 * class name as the switch rather than quietly doing something else than the operator's Kafka did.
 */
public record OAuthBearerSettings(
        URI jwksUrl, long jwksRefreshMs, long retryBackoffMs, long retryBackoffMaxMs, JwtValidator.Settings token) {
    static final String JWKS_URL = "sasl.oauthbearer.jwks.endpoint.url";
    static final String JWKS_REFRESH_MS = "sasl.oauthbearer.jwks.endpoint.refresh.ms";
    static final String JWKS_RETRY_BACKOFF_MS = "sasl.oauthbearer.jwks.endpoint.retry.backoff.ms";
    static final String JWKS_RETRY_BACKOFF_MAX_MS = "sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms";
    static final String EXPECTED_ISSUER = "sasl.oauthbearer.expected.issuer";
    static final String EXPECTED_AUDIENCE = "sasl.oauthbearer.expected.audience";
    static final String SUB_CLAIM_NAME = "sasl.oauthbearer.sub.claim.name";
    static final String SCOPE_CLAIM_NAME = "sasl.oauthbearer.scope.claim.name";
    static final String CLOCK_SKEW_SECONDS = "sasl.oauthbearer.clock.skew.seconds";
    /** Only as {@code listener.name.<listener>.oauthbearer.sasl.server.callback.handler.class}, as in Kafka. */
    static final String CALLBACK_HANDLER_KEY = "oauthbearer.sasl.server.callback.handler.class";

    public static final String VALIDATOR_CALLBACK_HANDLER =
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler";

    /** Reads the keys through a listener's view ({@code get}: override first; {@code source}: the key's name). */
    static OAuthBearerSettings parse(Function<String, String> get, Function<String, String> source, String prefix) {
        String handler = get.apply(CALLBACK_HANDLER_KEY);
        if (handler == null || !handler.trim().equals(VALIDATOR_CALLBACK_HANDLER)) {
            throw new ConfigException(prefix + CALLBACK_HANDLER_KEY
                    + (handler == null ? " is not set" : "=" + handler.trim() + " is not a handler Varve runs")
                    + ", but OAUTHBEARER is enabled: set it to " + VALIDATOR_CALLBACK_HANDLER
                    + " (Varve validates signed JWTs against sasl.oauthbearer.jwks.endpoint.url; it never accepts"
                    + " unsecured tokens).");
        }
        String url = get.apply(JWKS_URL);
        if (url == null) {
            throw new ConfigException(prefix + JWKS_URL + " is not set, but OAUTHBEARER is enabled: name the JWK set"
                    + " tokens are checked against (https:, http: or file:).");
        }
        URI jwksUrl;
        try {
            jwksUrl = new URI(url.trim());
        } catch (URISyntaxException e) {
            throw new ConfigException(source.apply(JWKS_URL) + "=" + url + " is not a URL: " + e.getReason() + ".");
        }
        String scheme = jwksUrl.getScheme() == null ? "" : jwksUrl.getScheme().toLowerCase(Locale.ROOT);
        if (!Set.of("https", "http", "file").contains(scheme)) {
            throw new ConfigException(source.apply(JWKS_URL) + "=" + url
                    + " is not a URL Varve reads a JWK set from: use https:, http: or file:.");
        }
        String audiences = get.apply(EXPECTED_AUDIENCE);
        Set<String> expectedAudiences = audiences == null
                ? Set.of()
                : Arrays.stream(audiences.split(","))
                        .map(String::trim)
                        .filter(a -> !a.isEmpty())
                        .collect(Collectors.toUnmodifiableSet());
        String issuer = get.apply(EXPECTED_ISSUER);
        JwtValidator.Settings token = new JwtValidator.Settings(
                issuer == null ? null : issuer.trim(),
                expectedAudiences,
                claimName(get, source, SUB_CLAIM_NAME, "sub"),
                claimName(get, source, SCOPE_CLAIM_NAME, "scope"),
                number(get, source, CLOCK_SKEW_SECONDS, 30, 0));
        return new OAuthBearerSettings(
                jwksUrl,
                number(get, source, JWKS_REFRESH_MS, 3_600_000, 1),
                number(get, source, JWKS_RETRY_BACKOFF_MS, 100, 1),
                number(get, source, JWKS_RETRY_BACKOFF_MAX_MS, 10_000, 1),
                token);
    }

    private static String claimName(
            Function<String, String> get, Function<String, String> source, String key, String defaultName) {
        String value = get.apply(key);
        if (value == null) {
            return defaultName;
        }
        if (value.isBlank()) {
            throw new ConfigException(
                    source.apply(key) + " is empty: name the claim, for example " + defaultName + ".");
        }
        return value.trim();
    }

    private static long number(
            Function<String, String> get, Function<String, String> source, String key, long defaultValue, long min) {
        String value = get.apply(key);
        if (value == null) {
            return defaultValue;
        }
        long parsed;
        try {
            parsed = Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            parsed = Long.MIN_VALUE;
        }
        if (parsed < min) {
            throw new ConfigException("Invalid value '" + value + "' for configuration " + source.apply(key)
                    + ": expected a whole number, at least " + min + ".");
        }
        return parsed;
    }
}
