package io.varve.security.oauthbearer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * An access token the broker's own connections log in with, as a token endpoint (or a file) gave it: the compact JWS
 * itself, whom it names ({@code sub}, or the claim {@code sasl.oauthbearer.sub.claim.name} names) and when it expires
 * ({@code exp}). Its signature is not checked here (the node the token is shown to checks it); what is checked is
 * what Kafka's client checks before it uses a token: three parts, a JSON payload, a principal and an expiry.
 */
public record AccessToken(String value, String principal, long expiresAtMs) {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String toString() {
        return "AccessToken(" + principal + ", expires at " + expiresAtMs + ")"; // never the token
    }

    /**
     * The token of a token endpoint's answer (RFC 6749 section 5.1: a JSON object with {@code access_token}).
     *
     * @throws IllegalArgumentException with a sentence without the token when the answer or its token is unusable
     */
    public static AccessToken fromTokenResponse(String body, String principalClaim) {
        JsonNode answer;
        try {
            answer = JSON.readTree(body);
        } catch (IOException e) {
            throw new IllegalArgumentException("the token endpoint's answer is not JSON");
        }
        JsonNode token = answer == null ? null : answer.get("access_token");
        if (token == null || !token.isTextual() || token.asText().isBlank()) {
            throw new IllegalArgumentException("the token endpoint's answer has no access_token");
        }
        return parse(token.asText().trim(), principalClaim);
    }

    /** A compact JWS, its claims read (not verified). */
    public static AccessToken parse(String jws, String principalClaim) {
        String[] parts = jws.split("\\.", -1);
        if (parts.length != 3 || parts[0].isEmpty() || parts[1].isEmpty()) {
            throw new IllegalArgumentException("the access token is not a JWT (header.payload.signature)");
        }
        JsonNode claims;
        try {
            claims = JSON.readTree(new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8));
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("the access token's payload is not base64url-encoded JSON");
        }
        if (claims == null || !claims.isObject()) {
            throw new IllegalArgumentException("the access token's payload is not a JSON object");
        }
        JsonNode exp = claims.get("exp");
        if (exp == null || !exp.isNumber()) {
            throw new IllegalArgumentException("the access token has no exp claim");
        }
        JsonNode principal = claims.get(principalClaim);
        if (principal == null || !principal.isTextual() || principal.asText().isBlank()) {
            throw new IllegalArgumentException("the access token has no " + principalClaim + " claim");
        }
        return new AccessToken(jws, principal.asText(), (long) (exp.asDouble() * 1000));
    }
}
