package io.varve.broker.network.client;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.varve.broker.config.BrokerConfig;
import io.varve.broker.security.SecurityConfig;
import io.varve.broker.security.TlsContexts;
import io.varve.security.oauthbearer.AccessToken;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the broker's own connections to another node's listener (inter-broker fetches and markers, the controller
 * channel, Raft between controllers) prove who they are, as the listener's protocol asks: TLS with the broker's
 * keystore as its client certificate and its truststore to check the peer (unless {@code
 * ssl.endpoint.identification.algorithm} is empty, the peer's certificate must name the host connected to), and on a
 * SASL listener a SASL exchange ({@link SaslClientHandler}) before any other request (OAUTHBEARER with the token of
 * the listener's {@link io.varve.broker.security.OAuthBearerLogin}). Built once at start-up, so bad
 * settings stop start-up.
 *
 * <p>A failed login is logged once per peer and reason, not on every reconnection, and once more when it succeeds
 * again.
 */
public final class ClientSecurity {
    private static final Logger LOG = LoggerFactory.getLogger(ClientSecurity.class);

    private final String listenerName;
    /** Null when the listener is not TLS; replaced by a keystore reload (new connections only). */
    private volatile SslContext tls;
    /** Null when the listener is not SASL. */
    private final SecurityConfig.OutgoingSasl sasl;
    /** Per peer, the last failure logged. */
    private final Map<String, String> failures = new ConcurrentHashMap<>();
    /** Where OAUTHBEARER logins get their token; null for the other mechanisms. */
    private final Supplier<CompletableFuture<AccessToken>> tokens;

    /** {@code tls} from {@link TlsContexts#clientContext} (or null), {@code sasl} from the config (or null). */
    public ClientSecurity(String listenerName, SslContext tls, SecurityConfig.OutgoingSasl sasl) {
        this(listenerName, tls, sasl, null);
    }

    /** As above; {@code tokens}: the current OAUTHBEARER token, when {@code sasl} is OAUTHBEARER. */
    public ClientSecurity(
            String listenerName,
            SslContext tls,
            SecurityConfig.OutgoingSasl sasl,
            Supplier<CompletableFuture<AccessToken>> tokens) {
        if (tls == null && sasl == null) {
            throw new IllegalArgumentException("a PLAINTEXT listener needs no client security: use null");
        }
        if (sasl != null && sasl.oauthBearer() != null && tokens == null) {
            throw new IllegalArgumentException("an OAUTHBEARER login needs a token source");
        }
        this.listenerName = listenerName;
        this.tls = tls;
        this.sasl = sasl;
        this.tokens = tokens;
    }

    /** TLS only, as an SSL listener asks. */
    public ClientSecurity(SslContext tls) {
        this("SSL", tls, null);
    }

    /** The security of connections to {@code listenerName}, or null when that listener is PLAINTEXT. */
    public static ClientSecurity forListener(BrokerConfig config, String listenerName) {
        String protocol = config.securityProtocolOf(listenerName);
        SslContext tls = protocol.equals("SSL") || protocol.equals("SASL_SSL")
                ? TlsContexts.clientContext(
                        listenerName,
                        SecurityConfig.outgoingTls(config.originals(), listenerName),
                        SecurityConfig.verifiesHostname(config.originals(), listenerName))
                : null;
        SecurityConfig.OutgoingSasl sasl = config.security().outgoingSasl(listenerName);
        if (protocol.startsWith("SASL_") && sasl == null) {
            throw new IllegalStateException("listener " + listenerName + " speaks " + protocol
                    + " but the config has no SASL login for it: it is not one the broker connects to");
        }
        if (tls == null && sasl == null) {
            return null;
        }
        Supplier<CompletableFuture<AccessToken>> tokens = null;
        if (sasl != null && sasl.oauthBearer() != null) {
            tokens = config.security().oauthBearerLogin(listenerName)::token;
        }
        ClientSecurity security = new ClientSecurity(listenerName, tls, sasl, tokens);
        if (tls != null) {
            boolean verifyHostname = SecurityConfig.verifiesHostname(config.originals(), listenerName);
            config.security()
                    .outgoingTlsContexts()
                    .register(
                            listenerName,
                            next -> security.replaceTls(TlsContexts.clientContext(listenerName, next, verifyHostname)));
        }
        return security;
    }

    /** New connections use {@code next} (a keystore or truststore reload); open ones keep their session. */
    void replaceTls(SslContext next) {
        if (tls == null) {
            throw new IllegalStateException("connections to listener " + listenerName + " do not use TLS");
        }
        tls = next;
    }

    /** The security of connections to the controllers' listener (the first of {@code controller.listener.names}). */
    public static ClientSecurity forController(BrokerConfig config) {
        return config.controllerListenerNames().isEmpty()
                ? null
                : forListener(config, config.controllerListenerNames().get(0));
    }

    /**
     * A new connection's pipeline up to its frames: TLS first (its engine told the peer's name and port), then the
     * frame decoder, then the SASL exchange, which holds the connection's requests until it has logged in.
     * {@code security} null: frames alone (PLAINTEXT).
     */
    public static void pipeline(
            ClientSecurity security, Channel channel, InetSocketAddress peer, int maxFrameBytes, String clientId) {
        if (security != null && security.tls != null) {
            channel.pipeline().addLast("tls", security.handler(channel.alloc(), peer));
        }
        channel.pipeline().addLast("frames", new LengthFieldBasedFrameDecoder(maxFrameBytes, 0, 4, 0, 4));
        if (security != null && security.sasl != null) {
            channel.pipeline().addLast("sasl", new SaslClientHandler(security, peer, clientId));
        }
    }

    /** The TLS client handler of a connection to {@code peer}. */
    public SslHandler handler(ByteBufAllocator alloc, InetSocketAddress peer) {
        SslContext current = tls;
        if (current == null) {
            throw new IllegalStateException("connections to listener " + listenerName + " do not use TLS");
        }
        return current.newHandler(alloc, peer.getHostString(), peer.getPort());
    }

    SecurityConfig.OutgoingSasl sasl() {
        return sasl;
    }

    /** The token an OAUTHBEARER login shows now (a future: the first one may still be on its way). */
    CompletableFuture<AccessToken> oauthBearerToken() {
        return tokens.get();
    }

    String listenerName() {
        return listenerName;
    }

    /** Logs a failed login to {@code peer} unless the same failure was the last one logged for it. */
    void loginFailed(InetSocketAddress address, String why) {
        String peer = address.getHostString() + ":" + address.getPort();
        String previous = failures.put(peer, why);
        if (why.equals(previous)) {
            LOG.debug("Still cannot log in to the node at {}: {}", peer, why);
            return;
        }
        LOG.error(
                "Cannot log in to the node at {} on listener {} as {} with {}: {} (retried; logged again only if"
                        + " this changes)",
                peer,
                listenerName,
                sasl.username(),
                sasl.mechanism(),
                why);
    }

    /** Notes a successful login; logs it when earlier ones to the same peer had failed. */
    void loggedIn(InetSocketAddress address) {
        String peer = address.getHostString() + ":" + address.getPort();
        if (failures.remove(peer) != null) {
            LOG.info("Logged in to the node at {} on listener {} as {} again", peer, listenerName, sasl.username());
        }
    }
}
