package io.varve.broker.security;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.varve.broker.config.ConfigException;
import io.varve.broker.config.ListenerConfig;
import io.varve.broker.network.ListenerFront;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds a TLS listener's server context with BoringSSL (netty-tcnative) where it loads, the JDK's provider otherwise
 * ({@link #provider}): the key from a JKS or PKCS12 keystore or PEM (text
 * in {@code ssl.keystore.certificate.chain} / {@code ssl.keystore.key}, or a file at {@code ssl.keystore.location}),
 * the certificates clients are checked against likewise, client authentication, protocols and suites. Anything that
 * cannot be read stops start-up with one sentence naming the key; passwords never appear in it.
 */
public final class TlsContexts {
    private static final Logger log = LoggerFactory.getLogger(TlsContexts.class);
    private static volatile boolean providerLogged;

    /**
     * BoringSSL when netty-tcnative loads on this machine (it encrypts with fewer copies and less CPU than the JDK's
     * engine), else the JDK's; {@code -Dvarve.tls.provider=jdk} forces the JDK's. Said once in the log.
     */
    static SslProvider provider() {
        boolean jdk = "jdk".equalsIgnoreCase(System.getProperty("varve.tls.provider", ""));
        SslProvider provider = !jdk && OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
        if (!providerLogged) {
            providerLogged = true;
            if (provider == SslProvider.OPENSSL) {
                log.info("TLS by {} (netty-tcnative)", OpenSsl.versionString());
            } else {
                log.info(
                        "TLS by the JDK's engine ({})",
                        jdk
                                ? "varve.tls.provider=jdk"
                                : "netty-tcnative unavailable: " + OpenSsl.unavailabilityCause());
            }
        }
        return provider;
    }

    /** Each listener's front, with its TLS context built now: a keystore that cannot be read stops start-up. */
    public static Function<String, ListenerFront> fronts(SecurityConfig security, List<ListenerConfig> listeners) {
        return fronts(security, listeners, new HashMap<>());
    }

    /** As {@link #fronts(SecurityConfig, List)}, and puts each TLS listener's reloadable context in {@code out}. */
    public static Function<String, ListenerFront> fronts(
            SecurityConfig security, List<ListenerConfig> listeners, Map<String, ReloadableSslContext> out) {
        Map<String, ListenerFront> fronts = new HashMap<>();
        for (ListenerConfig listener : listeners) {
            ListenerSecurity ls = security.forListener(listener.name());
            fronts.put(
                    listener.name(),
                    ls.protocol().tls()
                            ? new ListenerFront(
                                    ls.protocol(),
                                    out.computeIfAbsent(
                                            listener.name(), n -> new ReloadableSslContext(serverContext(n, ls.tls()))),
                                    ls.tls().principalMappingRules())
                            : new ListenerFront(ls.protocol(), null, null));
        }
        return name -> fronts.getOrDefault(name, ListenerFront.PLAINTEXT);
    }

    public static SslContext serverContext(String listenerName, ListenerSecurity.Tls tls) {
        try {
            SslContextBuilder builder = keyMaterial(listenerName, tls, false);
            trustMaterial(listenerName, tls, builder);
            builder.sslProvider(provider())
                    .protocols(tls.enabledProtocols())
                    .clientAuth(
                            switch (tls.clientAuth()) {
                                case NONE -> ClientAuth.NONE;
                                case REQUESTED -> ClientAuth.OPTIONAL;
                                case REQUIRED -> ClientAuth.REQUIRE;
                            });
            if (!tls.cipherSuites().isEmpty()) {
                builder.ciphers(tls.cipherSuites());
            }
            return builder.build();
        } catch (SSLException e) {
            throw new ConfigException("The TLS settings of listener " + listenerName + " (ssl.enabled.protocols,"
                    + " ssl.cipher.suites) cannot be used: " + message(e) + ".");
        }
    }

    /**
     * The context the broker's own connections to {@code listenerName} (another broker's inter-broker listener, a
     * controller's listener) use: the keystore's certificate for mTLS, the truststore to check the peer, and with
     * {@code verifyHostname} the peer's certificate must name the host connected to (the engine must be made with it).
     */
    public static SslContext clientContext(String listenerName, ListenerSecurity.Tls tls, boolean verifyHostname) {
        try {
            SslContextBuilder builder = keyMaterial(listenerName, tls, true);
            trustMaterial(listenerName, tls, builder);
            builder.sslProvider(provider())
                    .protocols(tls.enabledProtocols())
                    // Netty's client default is to verify; Kafka's empty algorithm turns it off
                    .endpointIdentificationAlgorithm(verifyHostname ? "HTTPS" : null);
            if (!tls.cipherSuites().isEmpty()) {
                builder.ciphers(tls.cipherSuites());
            }
            return builder.build();
        } catch (SSLException e) {
            throw new ConfigException("The TLS settings for connections to listener " + listenerName
                    + " (ssl.enabled.protocols, ssl.cipher.suites) cannot be used: " + message(e) + ".");
        }
    }

    private static SslContextBuilder keyMaterial(String listenerName, ListenerSecurity.Tls tls, boolean client) {
        String where = "ssl.keystore of listener " + listenerName;
        try {
            if (tls.keystoreType().equals("PEM")) {
                if (tls.keystoreCertificateChain() != null) {
                    return client
                            ? SslContextBuilder.forClient()
                                    .keyManager(
                                            stream(tls.keystoreCertificateChain()),
                                            stream(tls.keystoreKey()),
                                            tls.keyPassword())
                            : SslContextBuilder.forServer(
                                    stream(tls.keystoreCertificateChain()),
                                    stream(tls.keystoreKey()),
                                    tls.keyPassword());
                }
                File file = readable(tls.keystoreLocation(), "ssl.keystore.location", listenerName);
                return client
                        ? SslContextBuilder.forClient().keyManager(file, file, tls.keyPassword())
                        : SslContextBuilder.forServer(file, file, tls.keyPassword());
            }
            KeyStore store = load(
                    tls.keystoreType(), tls.keystoreLocation(), tls.keystorePassword(), "ssl.keystore", listenerName);
            KeyManagerFactory factory = KeyManagerFactory.getInstance(tls.keyManagerAlgorithm());
            String keyPassword = tls.keyPassword() != null ? tls.keyPassword() : tls.keystorePassword();
            factory.init(store, keyPassword == null ? new char[0] : keyPassword.toCharArray());
            return client ? SslContextBuilder.forClient().keyManager(factory) : SslContextBuilder.forServer(factory);
        } catch (IllegalArgumentException | GeneralSecurityException e) {
            throw new ConfigException("The key or certificate in " + where + " cannot be used (check"
                    + " ssl.keystore.password / ssl.key.password): " + message(e) + ".");
        }
    }

    private static void trustMaterial(String listenerName, ListenerSecurity.Tls tls, SslContextBuilder builder) {
        if (tls.truststoreLocation() == null && tls.truststoreCertificates() == null) {
            return;
        }
        try {
            if (tls.truststoreType().equals("PEM")) {
                if (tls.truststoreCertificates() != null) {
                    builder.trustManager(stream(tls.truststoreCertificates()));
                } else {
                    builder.trustManager(readable(tls.truststoreLocation(), "ssl.truststore.location", listenerName));
                }
                return;
            }
            KeyStore store = load(
                    tls.truststoreType(),
                    tls.truststoreLocation(),
                    tls.truststorePassword(),
                    "ssl.truststore",
                    listenerName);
            TrustManagerFactory factory = TrustManagerFactory.getInstance(tls.trustManagerAlgorithm());
            factory.init(store);
            builder.trustManager(factory);
        } catch (IllegalArgumentException | GeneralSecurityException e) {
            throw new ConfigException("The certificates in ssl.truststore of listener " + listenerName
                    + " cannot be used: " + message(e) + ".");
        }
    }

    private static KeyStore load(String type, String location, String password, String prefix, String listenerName) {
        File file = readable(location, prefix + ".location", listenerName);
        try (InputStream in = Files.newInputStream(file.toPath())) {
            KeyStore store = KeyStore.getInstance(type);
            store.load(in, password == null ? null : password.toCharArray());
            return store;
        } catch (IOException | GeneralSecurityException e) {
            throw new ConfigException(prefix + ".location " + location + " of listener " + listenerName
                    + " cannot be read as " + type + " (check " + prefix + ".password and " + prefix + ".type): "
                    + message(e) + ".");
        }
    }

    private static File readable(String location, String key, String listenerName) {
        Path path = Path.of(location);
        if (!Files.isReadable(path)) {
            throw new ConfigException(
                    key + " " + location + " of listener " + listenerName + " is not a readable file.");
        }
        return path.toFile();
    }

    private static InputStream stream(String pem) {
        // Kafka's PEM values may be written on one line; the PEM reader wants the blocks' line breaks back.
        String text = pem.replace("\\n", "\n");
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.US_ASCII));
    }

    private static String message(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
    }

    private TlsContexts() {}
}
