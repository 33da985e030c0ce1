package io.varve.broker.security;

import io.varve.broker.config.ConfigException;
import io.varve.security.oauthbearer.RefreshSchedule;
import io.varve.security.sasl.JaasConfig;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How the broker's own connections to an OAUTHBEARER listener get their token, from Kafka's keys as a broker's {@code
 * server.properties} gives them for inter-broker OAUTHBEARER: the client-credentials grant against {@code
 * sasl.oauthbearer.token.endpoint.url} ({@code https:}/{@code http:}; a {@code file:} URL names a file holding the
 * token, read again at each refresh), with the {@code clientId} / {@code clientSecret} / {@code scope} of the
 * listener's {@code OAuthBearerLoginModule} JAAS entry (or KIP-1139's {@code
 * sasl.oauthbearer.client.credentials.client.id} / {@code .client.secret} and {@code sasl.oauthbearer.scope}), under
 * {@code sasl.login.callback.handler.class=OAuthBearerLoginCallbackHandler} as Kafka requires; refreshed before expiry
 * ({@code sasl.login.refresh.*}, {@link RefreshSchedule}); {@code sasl.login.connect.timeout.ms} / {@code
 * read.timeout.ms} bound each request and {@code sasl.login.retry.backoff.*} space the retries.
 *
 * <p>Each key is read as {@code listener.name.<l>.oauthbearer.<key>}, then {@code listener.name.<l>.<key>}, then
 * {@code <key>}. Kafka's unsecured login ({@code unsecuredLoginStringClaim_sub}) is refused: Varve's listeners accept
 * signed tokens only, so such a login could never succeed.
 */
public record OAuthBearerLoginSettings(
        URI tokenEndpoint,
        String clientId,
        String clientSecret,
        String scope,
        boolean urlEncodeCredentials,
        String principalClaim,
        RefreshSchedule refresh,
        long connectTimeoutMs,
        long readTimeoutMs) {
    static final String TOKEN_ENDPOINT_URL = "sasl.oauthbearer.token.endpoint.url";
    static final String LOGIN_CALLBACK_HANDLER = "sasl.login.callback.handler.class";
    static final String CLIENT_ID = "sasl.oauthbearer.client.credentials.client.id";
    static final String CLIENT_SECRET = "sasl.oauthbearer.client.credentials.client.secret";
    static final String SCOPE = "sasl.oauthbearer.scope";
    static final String HEADER_URLENCODE = "sasl.oauthbearer.header.urlencode";
    static final String JWT_RETRIEVER = "sasl.oauthbearer.jwt.retriever.class";
    static final String WINDOW_FACTOR = "sasl.login.refresh.window.factor";
    static final String WINDOW_JITTER = "sasl.login.refresh.window.jitter";
    static final String MIN_PERIOD_SECONDS = "sasl.login.refresh.min.period.seconds";
    static final String BUFFER_SECONDS = "sasl.login.refresh.buffer.seconds";
    static final String CONNECT_TIMEOUT_MS = "sasl.login.connect.timeout.ms";
    static final String READ_TIMEOUT_MS = "sasl.login.read.timeout.ms";
    static final String RETRY_BACKOFF_MS = "sasl.login.retry.backoff.ms";
    static final String RETRY_BACKOFF_MAX_MS = "sasl.login.retry.backoff.max.ms";

    /** The keys this class reads (with or without the {@code oauthbearer.} mechanism prefix under a listener). */
    static final Set<String> KEYS = Set.of(
            TOKEN_ENDPOINT_URL,
            LOGIN_CALLBACK_HANDLER,
            CLIENT_ID,
            CLIENT_SECRET,
            SCOPE,
            HEADER_URLENCODE,
            JWT_RETRIEVER,
            WINDOW_FACTOR,
            WINDOW_JITTER,
            MIN_PERIOD_SECONDS,
            BUFFER_SECONDS,
            CONNECT_TIMEOUT_MS,
            READ_TIMEOUT_MS,
            RETRY_BACKOFF_MS,
            RETRY_BACKOFF_MAX_MS);

    public static final String LOGIN_CALLBACK_HANDLER_CLASS =
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler";
    private static final Set<String> RETRIEVERS = Set.of(
            "org.apache.kafka.common.security.oauthbearer.DefaultJwtRetriever",
            "org.apache.kafka.common.security.oauthbearer.ClientCredentialsJwtRetriever");
    private static final String LOGIN_MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule";

    @Override
    public String toString() {
        return "OAuthBearerLoginSettings(" + tokenEndpoint + " as " + clientId + ")"; // never the secret
    }

    /** The name the broker's log lines give this login: the client id, or the token file. */
    public String who() {
        return clientId != null ? clientId : tokenEndpoint.toString();
    }

    /** Reads the login of connections to {@code listenerName}; {@code jaas} is its OAUTHBEARER JAAS entry (or null). */
    static OAuthBearerLoginSettings parse(
            Map<String, String> originals, String listenerName, JaasConfig jaas, String jaasSource) {
        Lookup keys = new Lookup(originals, listenerName);
        String handler = keys.get(LOGIN_CALLBACK_HANDLER);
        if (jaas != null && !jaas.loginModule().equals(LOGIN_MODULE)) {
            throw new ConfigException(jaasSource + " names " + jaas.loginModule() + ", but the broker's OAUTHBEARER"
                    + " login is read from " + LOGIN_MODULE + ".");
        }
        if (jaas != null && jaas.options().keySet().stream().anyMatch(k -> k.startsWith("unsecuredLogin"))) {
            throw new ConfigException(jaasSource + " asks for an unsecured OAUTHBEARER login (unsecuredLogin...),"
                    + " which Varve's listeners never accept: use " + LOGIN_CALLBACK_HANDLER + "="
                    + LOGIN_CALLBACK_HANDLER_CLASS + " with " + TOKEN_ENDPOINT_URL + ".");
        }
        if (jaas != null && jaas.options().keySet().stream().anyMatch(k -> k.startsWith("extension_"))) {
            // SASL extensions (KIP-342) are not sent by the nodes' own logins: refusing beats dropping them silently
            throw new ConfigException(jaasSource + " gives SASL extensions (extension_...), which Varve's own"
                    + " OAUTHBEARER logins do not send yet: remove them.");
        }
        if (handler == null || !handler.trim().equals(LOGIN_CALLBACK_HANDLER_CLASS)) {
            throw new ConfigException(keys.prefix() + LOGIN_CALLBACK_HANDLER
                    + (handler == null ? " is not set" : "=" + handler.trim() + " is not a handler Varve runs")
                    + ", but the broker's own connections to listener " + listenerName + " log in with OAUTHBEARER:"
                    + " set it to " + LOGIN_CALLBACK_HANDLER_CLASS + " (tokens from " + TOKEN_ENDPOINT_URL + ").");
        }
        String retriever = keys.get(JWT_RETRIEVER);
        if (retriever != null && !RETRIEVERS.contains(retriever.trim())) {
            throw new ConfigException(keys.source(JWT_RETRIEVER) + "=" + retriever.trim() + " is not a retriever Varve"
                    + " runs: leave it unset or use ClientCredentialsJwtRetriever (the client-credentials grant).");
        }
        String url = keys.get(TOKEN_ENDPOINT_URL);
        if (url == null) {
            throw new ConfigException(keys.prefix() + TOKEN_ENDPOINT_URL + " is not set, but the broker's own"
                    + " connections to listener " + listenerName + " log in with OAUTHBEARER: name the token endpoint"
                    + " (https:, http:) or a token file (file:).");
        }
        URI endpoint;
        try {
            endpoint = new URI(url.trim());
        } catch (URISyntaxException e) {
            throw new ConfigException(
                    keys.source(TOKEN_ENDPOINT_URL) + "=" + url + " is not a URL: " + e.getReason() + ".");
        }
        String scheme = endpoint.getScheme() == null ? "" : endpoint.getScheme().toLowerCase(Locale.ROOT);
        if (!Set.of("https", "http", "file").contains(scheme)) {
            throw new ConfigException(keys.source(TOKEN_ENDPOINT_URL) + "=" + url
                    + " is not a URL Varve gets a token from: use https:, http: or file:.");
        }
        Map<String, String> options = jaas == null ? Map.of() : jaas.options();
        String clientId = firstOf(options.get("clientId"), keys.get(CLIENT_ID));
        String clientSecret = firstOf(options.get("clientSecret"), keys.get(CLIENT_SECRET));
        String scope = firstOf(options.get("scope"), keys.get(SCOPE));
        if (!scheme.equals("file") && (clientId == null || clientSecret == null)) {
            throw new ConfigException((jaasSource == null ? keys.prefix() + "sasl.jaas.config" : jaasSource)
                    + " has no clientId=\"...\" and clientSecret=\"...\" (nor are " + CLIENT_ID + " and "
                    + CLIENT_SECRET + " set), which the broker's own connections to listener " + listenerName
                    + " get their token with.");
        }
        RefreshSchedule refresh;
        try {
            refresh = new RefreshSchedule(
                    decimal(keys, WINDOW_FACTOR, 0.8, 0.5, 1.0),
                    decimal(keys, WINDOW_JITTER, 0.05, 0.0, 0.25),
                    number(keys, MIN_PERIOD_SECONDS, 60, 0, 900) * 1000,
                    number(keys, BUFFER_SECONDS, 300, 0, 3600) * 1000,
                    number(keys, RETRY_BACKOFF_MS, 100, 1, Long.MAX_VALUE),
                    number(keys, RETRY_BACKOFF_MAX_MS, 10_000, 1, Long.MAX_VALUE));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(keys.source(RETRY_BACKOFF_MAX_MS) + " is below " + keys.source(RETRY_BACKOFF_MS)
                    + ": the maximum back-off must be at least the first.");
        }
        String urlEncode = keys.get(HEADER_URLENCODE);
        if (urlEncode != null
                && !urlEncode.trim().equalsIgnoreCase("true")
                && !urlEncode.trim().equalsIgnoreCase("false")) {
            throw new ConfigException("Invalid value '" + urlEncode + "' for configuration "
                    + keys.source(HEADER_URLENCODE) + ": expected true or false.");
        }
        String claim = keys.get(OAuthBearerSettings.SUB_CLAIM_NAME);
        return new OAuthBearerLoginSettings(
                endpoint,
                clientId,
                clientSecret,
                scope,
                urlEncode != null && Boolean.parseBoolean(urlEncode.trim()),
                claim == null ? "sub" : claim.trim(),
                refresh,
                number(keys, CONNECT_TIMEOUT_MS, 10_000, 1, Integer.MAX_VALUE),
                number(keys, READ_TIMEOUT_MS, 10_000, 1, Integer.MAX_VALUE));
    }

    private static String firstOf(String a, String b) {
        return a != null && !a.isEmpty() ? a : b;
    }

    private static double decimal(Lookup keys, String key, double defaultValue, double min, double max) {
        String value = keys.get(key);
        if (value == null) {
            return defaultValue;
        }
        double parsed;
        try {
            parsed = Double.parseDouble(value.trim());
        } catch (NumberFormatException e) {
            parsed = Double.NaN;
        }
        if (!(parsed >= min && parsed <= max)) {
            throw new ConfigException("Invalid value '" + value + "' for configuration " + keys.source(key)
                    + ": expected a number from " + min + " to " + max + ".");
        }
        return parsed;
    }

    private static long number(Lookup keys, String key, long defaultValue, long min, long max) {
        String value = keys.get(key);
        if (value == null) {
            return defaultValue;
        }
        long parsed;
        try {
            parsed = Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            parsed = Long.MIN_VALUE;
        }
        if (parsed < min || parsed > max) {
            throw new ConfigException("Invalid value '" + value + "' for configuration " + keys.source(key)
                    + ": expected a whole number from " + min + (max == Long.MAX_VALUE ? " up" : " to " + max) + ".");
        }
        return parsed;
    }

    /** {@code listener.name.<l>.oauthbearer.<key>}, then {@code listener.name.<l>.<key>}, then {@code <key>}. */
    private record Lookup(Map<String, String> originals, String listenerName) {
        String prefix() {
            return "listener.name." + listenerName.toLowerCase(Locale.ROOT) + ".oauthbearer.";
        }

        String source(String key) {
            String listener = "listener.name." + listenerName.toLowerCase(Locale.ROOT) + ".";
            for (String candidate : new String[] {prefix() + key, listener + key}) {
                if (originals.containsKey(candidate)) {
                    return candidate;
                }
            }
            return key;
        }

        String get(String key) {
            String value = originals.get(source(key));
            return value == null || value.isBlank() ? null : value;
        }
    }
}
