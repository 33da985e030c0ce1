package io.varve.it.security;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An OAuth 2 identity provider on loopback for the tests, on the JDK's HttpServer: {@code /jwks} publishes an RSA
 * and an EC signing key, {@code /token} answers the client-credentials grant kafka-clients'
 * OAuthBearerLoginCallbackHandler sends with a JWT whose shape the client id chooses ({@link Kind}).
 */
public final class TestIdentityProvider implements AutoCloseable {
    public static final String ISSUER = "https://idp.varve.test";
    public static final String AUDIENCE = "varve";
    private static final Base64.Encoder URL = Base64.getUrlEncoder().withoutPadding();

    /** What {@code /token} hands a client id. */
    public enum Kind {
        /** RS256, the RSA key of the set, right audience and issuer. */
        RS256,
        /** ES256, the EC key of the set. */
        ES256,
        /** Signed by a key the set does not hold, under the RSA key's kid. */
        FORGED,
        /** Audience {@code billing}. */
        WRONG_AUDIENCE,
        /** RS256 with a second RSA key, kid {@code rsa-2}, published only after {@link #publishRotatedKey()}. */
        ROTATED
    }

    private final HttpServer server;
    private final KeyPair rsa;
    private final KeyPair ec;
    private final KeyPair stranger;
    private final KeyPair rotated;
    private volatile boolean rotatedPublished;
    private final Map<String, Kind> clients = new ConcurrentHashMap<>();
    private final AtomicInteger tokensIssued = new AtomicInteger();
    private volatile long lifetimeSeconds = 3600;

    public TestIdentityProvider() throws Exception {
        KeyPairGenerator rsaGenerator = KeyPairGenerator.getInstance("RSA");
        rsaGenerator.initialize(2048);
        rsa = rsaGenerator.generateKeyPair();
        stranger = rsaGenerator.generateKeyPair();
        rotated = rsaGenerator.generateKeyPair();
        KeyPairGenerator ecGenerator = KeyPairGenerator.getInstance("EC");
        ecGenerator.initialize(new ECGenParameterSpec("secp256r1"));
        ec = ecGenerator.generateKeyPair();
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/jwks", exchange -> answer(exchange, 200, jwks()));
        server.createContext("/token", this::token);
        server.start();
    }

    public void client(String clientId, Kind kind) {
        clients.put(clientId, kind);
    }

    /** The lifetime of the tokens issued from now on. */
    public void lifetimeSeconds(long seconds) {
        lifetimeSeconds = seconds;
    }

    /** The identity provider rotates its keys: the JWKS now holds {@code rsa-2} too. */
    void publishRotatedKey() {
        rotatedPublished = true;
    }

    public int tokensIssued() {
        return tokensIssued.get();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    String jwks() {
        RSAPublicKey r = (RSAPublicKey) rsa.getPublic();
        ECPublicKey e = (ECPublicKey) ec.getPublic();
        return "{\"keys\":[{\"kty\":\"RSA\",\"kid\":\"rsa-1\",\"use\":\"sig\",\"alg\":\"RS256\",\"n\":\""
                + b64(r.getModulus(), 0) + "\",\"e\":\"" + b64(r.getPublicExponent(), 0) + "\"},"
                + "{\"kty\":\"EC\",\"kid\":\"ec-1\",\"use\":\"sig\",\"crv\":\"P-256\",\"x\":\""
                + b64(e.getW().getAffineX(), 32) + "\",\"y\":\"" + b64(e.getW().getAffineY(), 32) + "\"},"
                + "{\"kty\":\"RSA\",\"kid\":\"enc-1\",\"use\":\"enc\",\"n\":\"" + b64(r.getModulus(), 0)
                + "\",\"e\":\"AQAB\"}"
                + (rotatedPublished
                        ? ",{\"kty\":\"RSA\",\"kid\":\"rsa-2\",\"n\":\""
                                + b64(((RSAPublicKey) rotated.getPublic()).getModulus(), 0) + "\",\"e\":\"AQAB\"}"
                        : "")
                + "]}";
    }

    /** A token for {@code subject} of the given kind, expiring {@code expiresInSeconds} from now (may be negative). */
    String token(Kind kind, String subject, long expiresInSeconds) throws Exception {
        long now = System.currentTimeMillis() / 1000;
        String audience = kind == Kind.WRONG_AUDIENCE ? "billing" : AUDIENCE;
        String claims = "{\"iss\":\"" + ISSUER + "\",\"aud\":\"" + audience + "\",\"sub\":\"" + subject + "\",\"iat\":"
                + now + ",\"exp\":" + (now + expiresInSeconds) + ",\"scope\":\"kafka\"}";
        boolean ecdsa = kind == Kind.ES256;
        String header = "{\"alg\":\"" + (ecdsa ? "ES256" : "RS256") + "\",\"typ\":\"JWT\",\"kid\":\""
                + (ecdsa ? "ec-1" : kind == Kind.ROTATED ? "rsa-2" : "rsa-1") + "\"}";
        String input = URL.encodeToString(header.getBytes(UTF_8)) + "." + URL.encodeToString(claims.getBytes(UTF_8));
        Signature signer = Signature.getInstance(ecdsa ? "SHA256withECDSAinP1363Format" : "SHA256withRSA");
        signer.initSign(
                (kind == Kind.FORGED ? stranger : kind == Kind.ROTATED ? rotated : ecdsa ? ec : rsa).getPrivate());
        signer.update(input.getBytes(UTF_8));
        return input + "." + URL.encodeToString(signer.sign());
    }

    private void token(HttpExchange exchange) throws IOException {
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        String clientId = null;
        if (authorization != null && authorization.startsWith("Basic ")) {
            String decoded = new String(Base64.getDecoder().decode(authorization.substring(6)), UTF_8);
            clientId = URLDecoder.decode(decoded.substring(0, decoded.indexOf(':')), UTF_8);
        }
        Kind kind = clientId == null ? null : clients.get(clientId);
        if (kind == null) {
            answer(exchange, 401, "{\"error\":\"invalid_client\"}");
            return;
        }
        try {
            long lifetime = lifetimeSeconds;
            String jwt = token(kind, clientId, lifetime);
            tokensIssued.incrementAndGet();
            answer(
                    exchange,
                    200,
                    "{\"access_token\":\"" + jwt + "\",\"token_type\":\"Bearer\",\"expires_in\":" + lifetime + "}");
        } catch (Exception e) {
            answer(exchange, 500, "{\"error\":\"server_error\"}");
        }
    }

    private static void answer(HttpExchange exchange, int status, String body) throws IOException {
        exchange.getRequestBody().readAllBytes();
        byte[] bytes = body.getBytes(UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    private static String b64(BigInteger value, int length) {
        byte[] bytes = value.toByteArray();
        int start = bytes.length > 1 && bytes[0] == 0 ? 1 : 0;
        int size = Math.max(bytes.length - start, length);
        byte[] out = new byte[size];
        System.arraycopy(bytes, start, out, size - (bytes.length - start), bytes.length - start);
        return URL.encodeToString(out);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
