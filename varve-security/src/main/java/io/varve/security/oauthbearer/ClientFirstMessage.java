package io.varve.security.oauthbearer;

import io.varve.security.sasl.SaslAuthenticationFailure;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The client's first OAUTHBEARER message (RFC 7628 section 3.1, as KIP-255 sends it): a GS2 header {@code n,} with an
 * optional {@code a=<authzid>}, then {@code \x01}-separated {@code key=value} pairs, one of them {@code auth=Bearer
 * <token>}, closed by an empty pair. The other pairs are SASL extensions (KIP-342).
 */
public record ClientFirstMessage(String authorizationId, String token, Map<String, String> extensions) {
    private static final char SEPARATOR = '\u0001';
    private static final Pattern KEY = Pattern.compile("[A-Za-z]+");
    private static final Pattern VALUE = Pattern.compile("[\\x21-\\x7E \\t\\r\\n]*");
    private static final Pattern BEARER = Pattern.compile("Bearer +([A-Za-z0-9._~+/=-]+)");
    /** A first message is a token and a few extensions; anything much longer is not one. */
    private static final int MAX_BYTES = 64 * 1024;

    public static ClientFirstMessage parse(byte[] bytes) throws SaslAuthenticationFailure {
        if (bytes.length > MAX_BYTES) {
            throw invalid("longer than " + MAX_BYTES + " bytes");
        }
        String message = new String(bytes, StandardCharsets.UTF_8);
        int firstSeparator = message.indexOf(SEPARATOR);
        if (firstSeparator < 0) {
            throw invalid("no key/value separator");
        }
        String header = message.substring(0, firstSeparator);
        if (!header.startsWith("n,") && !header.startsWith("y,")) {
            // "p=" asks for channel binding, which OAUTHBEARER over Kafka never offers
            throw invalid("GS2 header must start with n, (channel binding is not supported)");
        }
        String rest = header.substring(2);
        if (!rest.endsWith(",")) {
            throw invalid("malformed GS2 header");
        }
        rest = rest.substring(0, rest.length() - 1);
        String authorizationId = null;
        if (!rest.isEmpty()) {
            if (!rest.startsWith("a=") || rest.length() == 2 || rest.indexOf(',') >= 0) {
                throw invalid("malformed authorization id in the GS2 header");
            }
            authorizationId = rest.substring(2).replace("=2C", ",").replace("=3D", "=");
        }
        String pairs = message.substring(firstSeparator + 1);
        if (!pairs.endsWith(String.valueOf(SEPARATOR))) {
            throw invalid("not terminated by an empty key/value pair");
        }
        Map<String, String> values = new LinkedHashMap<>();
        String token = null;
        int start = 0;
        while (true) {
            int end = pairs.indexOf(SEPARATOR, start);
            if (end < 0) {
                throw invalid("not terminated by an empty key/value pair");
            }
            String pair = pairs.substring(start, end);
            if (pair.isEmpty()) {
                if (end != pairs.length() - 1) {
                    throw invalid("data after the closing separator");
                }
                break;
            }
            int equals = pair.indexOf('=');
            if (equals <= 0) {
                throw invalid("a key/value pair without a key");
            }
            String key = pair.substring(0, equals);
            String value = pair.substring(equals + 1);
            if (!KEY.matcher(key).matches() || !VALUE.matcher(value).matches()) {
                throw invalid("a key or value with characters RFC 7628 does not allow");
            }
            if (values.containsKey(key) || (key.equals("auth") && token != null)) {
                throw invalid("key " + key + " given twice");
            }
            if (key.equals("auth")) {
                var bearer = BEARER.matcher(value);
                if (!bearer.matches()) {
                    throw invalid("auth is not 'Bearer <token>'");
                }
                token = bearer.group(1);
            } else {
                values.put(key, value);
            }
            start = end + 1;
        }
        if (token == null) {
            throw invalid("no auth=Bearer <token> pair");
        }
        return new ClientFirstMessage(authorizationId, token, Map.copyOf(values));
    }

    private static SaslAuthenticationFailure invalid(String why) {
        return new SaslAuthenticationFailure("Authentication failed: invalid OAUTHBEARER client message: " + why);
    }
}
