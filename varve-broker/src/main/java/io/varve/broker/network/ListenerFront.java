package io.varve.broker.network;

import io.netty.handler.ssl.SslContext;
import io.varve.broker.security.SecurityProtocol;
import io.varve.security.ssl.PrincipalMappingRules;

/**
 * What stands in front of a listener's connections: its security protocol and, on SSL and SASL_SSL, the TLS context
 * and the rules that turn a client certificate into a principal.
 */
public record ListenerFront(SecurityProtocol protocol, SslContext sslContext, PrincipalMappingRules principalRules) {
    public static final ListenerFront PLAINTEXT = new ListenerFront(SecurityProtocol.PLAINTEXT, null, null);

    public ListenerFront {
        if (protocol.tls() != (sslContext != null)) {
            throw new IllegalArgumentException(
                    protocol + " listener " + (protocol.tls() ? "needs" : "takes no") + " TLS context");
        }
    }

    public boolean tls() {
        return sslContext != null;
    }
}
