package io.varve.http;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.ssl.SslHandler;
import java.nio.charset.StandardCharsets;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Base64;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * Who sent a request, by {@link HttpSecurity}'s methods: a verified client certificate first (it costs nothing more),
 * then HTTP Basic. The health probes need no authentication: orchestrators probe without credentials, and they reveal
 * only up or down.
 */
final class RequestAuthentication {
    /** The principal of requests that need no authentication, or of a listener that asks for none. */
    static final String ANONYMOUS = "User:ANONYMOUS";

    private final HttpSecurity security;

    RequestAuthentication(HttpSecurity security) {
        this.security = security;
    }

    static boolean exempt(String path) {
        return path.equals("/health/live") || path.equals("/health/ready");
    }

    /**
     * The certificate's principal when the connection has a verified client certificate and MTLS is accepted; null
     * otherwise. Cheap: called on the event loop.
     */
    String certificatePrincipal(Channel channel) {
        if (!security.methods().contains(HttpSecurity.Method.MTLS)) {
            return null;
        }
        SslHandler tls = channel.pipeline().get(SslHandler.class);
        if (tls == null) {
            return null;
        }
        try {
            Certificate[] chain = tls.engine().getSession().getPeerCertificates();
            return chain.length > 0 && chain[0] instanceof X509Certificate leaf
                    ? security.certificatePrincipal().apply(leaf)
                    : null;
        } catch (SSLPeerUnverifiedException e) {
            return null; // client authentication requested, not given
        }
    }

    /**
     * The principal of the request's {@code Authorization: Basic} credentials, or null when it has none or they do not
     * verify. A password check is a PBKDF2 run: call it on a worker, not the event loop.
     */
    String basicPrincipal(String authorization) {
        if (!security.methods().contains(HttpSecurity.Method.BASIC)
                || authorization == null
                || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            return null;
        }
        String decoded;
        try {
            decoded = new String(
                    Base64.getDecoder().decode(authorization.substring(6).trim()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
        int colon = decoded.indexOf(':');
        if (colon <= 0) {
            return null;
        }
        return security.basic()
                .verify(decoded.substring(0, colon), decoded.substring(colon + 1))
                .orElse(null);
    }

    static String authorizationHeader(FullHttpRequest request) {
        return request.headers().get(HttpHeaderNames.AUTHORIZATION);
    }

    /** 401, with the Basic challenge when Basic is accepted (so browsers ask for a password). */
    HttpResponse challenge() {
        HttpResponse refused = HttpResponse.error(401, "This listener needs authentication.");
        if (!security.methods().contains(HttpSecurity.Method.BASIC)) {
            return refused;
        }
        return new HttpResponse(
                refused.status(),
                refused.contentType(),
                refused.body(),
                java.util.Map.of("WWW-Authenticate", "Basic realm=\"varve\", charset=\"UTF-8\""));
    }
}
