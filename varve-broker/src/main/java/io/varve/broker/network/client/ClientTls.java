package io.varve.broker.network.client;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.varve.broker.config.BrokerConfig;
import io.varve.broker.security.SecurityConfig;
import io.varve.broker.security.TlsContexts;
import java.net.InetSocketAddress;

/**
 * TLS for the broker's own connections to another node's listener (inter-broker fetches and markers, the controller
 * channel, Raft between controllers): the broker's keystore as its client certificate, its truststore to check the
 * peer, and, unless {@code ssl.endpoint.identification.algorithm} is empty, the peer's certificate must name the host
 * connected to, as Kafka's clients check it. Built once at start-up, so bad settings stop start-up.
 */
public final class ClientTls {
    private final SslContext context;

    /** {@code context} from {@link TlsContexts#clientContext}, which decides hostname verification. */
    public ClientTls(SslContext context) {
        this.context = context;
    }

    /** TLS for connections to {@code listenerName}, or null when that listener is PLAINTEXT. */
    public static ClientTls forListener(BrokerConfig config, String listenerName) {
        String protocol = config.securityProtocolOf(listenerName);
        if (!protocol.equals("SSL")) {
            return null; // SASL on these listeners is refused by the config; PLAINTEXT needs nothing
        }
        return new ClientTls(TlsContexts.clientContext(
                listenerName,
                SecurityConfig.outgoingTls(config.originals(), listenerName),
                SecurityConfig.verifiesHostname(config.originals(), listenerName)));
    }

    /** TLS for connections to the controllers' listener (the first of {@code controller.listener.names}), or null. */
    public static ClientTls forController(BrokerConfig config) {
        return config.controllerListenerNames().isEmpty()
                ? null
                : forListener(config, config.controllerListenerNames().get(0));
    }

    /** The first handler of a connection to {@code peer}: the TLS client, its engine told the peer's name and port. */
    public SslHandler handler(ByteBufAllocator alloc, InetSocketAddress peer) {
        return context.newHandler(alloc, peer.getHostString(), peer.getPort());
    }
}
