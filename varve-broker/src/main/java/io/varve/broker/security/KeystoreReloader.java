package io.varve.broker.security;

import io.netty.handler.ssl.SslContext;
import io.varve.broker.config.ConfigException;
import io.varve.metadata.MetadataPublisher;
import io.varve.metadata.image.ConfigResource;
import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keystore reload without restart, as Kafka allows it: {@code listener.name.<listener>.ssl.keystore.*}, {@code
 * .ssl.key.password} and {@code .ssl.truststore.*} set on this broker's config resource (AlterConfigs /
 * IncrementalAlterConfigs, {@code kafka-configs --entity-type brokers --entity-name <id>}, on a controller with {@code
 * --bootstrap-controller}) replace the listener's key, certificate and trusted certificates for new connections: those
 * it accepts (the broker and controller listeners alike) and those the broker itself opens to that listener of other
 * nodes ({@link OutgoingTlsContexts}: fetchers, the controller channel, Raft).
 *
 * <p>{@link #check} runs on the broker that receives the request, before it is forwarded: a keystore that does not
 * load is refused with INVALID_CONFIG and the stored config (and the old keystore) stays; any other security key is
 * refused too, since Varve would not apply it at runtime. Once the change is committed, {@link #onMetadataUpdate}
 * builds the new context and swaps it in (one log line per reload).
 */
public final class KeystoreReloader implements MetadataPublisher {
    private static final Logger log = LoggerFactory.getLogger(KeystoreReloader.class);
    static final Set<String> KEYSTORE_KEYS = Set.of(
            "ssl.keystore.type",
            "ssl.keystore.location",
            "ssl.keystore.password",
            "ssl.key.password",
            "ssl.keystore.certificate.chain",
            "ssl.keystore.key",
            "ssl.truststore.type",
            "ssl.truststore.location",
            "ssl.truststore.password",
            "ssl.truststore.certificates");

    private final int nodeId;
    private final SecurityConfig security;
    private final Map<String, ReloadableSslContext> contexts;
    private final Supplier<MetadataImage> images;
    /** Per listener, the dynamic keystore keys last applied (raft thread only). */
    private final Map<String, Map<String, String>> applied = new HashMap<>();

    public KeystoreReloader(
            int nodeId,
            SecurityConfig security,
            Map<String, ReloadableSslContext> contexts,
            Supplier<MetadataImage> images) {
        this.nodeId = nodeId;
        this.security = security;
        this.contexts = Map.copyOf(contexts);
        this.images = images;
    }

    /**
     * Checks a change of a broker config resource ({@code ""}: the cluster default) before it is forwarded.
     *
     * @param changes keys set (values) and deleted (null values)
     * @param replace true when the request replaces the resource's configs (AlterConfigs), false when it edits them
     * @return why it is refused, or null
     */
    public String check(String resourceName, Map<String, String> changes, boolean replace) {
        Map<String, Map<String, String>> byListener = new TreeMap<>();
        for (Map.Entry<String, String> change : new TreeMap<>(changes).entrySet()) {
            String key = change.getKey();
            String listener = keystoreListener(key);
            if (listener == null) {
                if (SecurityConfig.owns(key)) {
                    return key + " cannot be changed while the broker runs: Varve reloads only"
                            + " listener.name.<listener>.ssl.keystore.*, ssl.key.password and ssl.truststore.*; set it"
                            + " in server.properties and restart.";
                }
                continue;
            }
            if (resourceName.isEmpty()) {
                return key + " can only be set for one broker (--entity-name <id>), as in Kafka.";
            }
            byListener.computeIfAbsent(listener, l -> new HashMap<>()).put(key, change.getValue());
        }
        for (Map.Entry<String, Map<String, String>> entry : byListener.entrySet()) {
            String listener = entry.getKey();
            if (!contexts.containsKey(listener)) {
                return "Listener " + listener + " of broker " + nodeId + " does not use TLS, so it has no keystore"
                        + " to reload.";
            }
            Map<String, String> dynamic = replace ? new HashMap<>() : dynamicKeystoreKeys(images.get(), listener);
            entry.getValue().forEach((key, value) -> {
                if (value == null) {
                    dynamic.remove(key);
                } else {
                    dynamic.put(key, value);
                }
            });
            try {
                build(listener, dynamic);
            } catch (ConfigException e) {
                return "The new keystore of listener " + listener + " is refused, the current one stays: "
                        + e.getMessage();
            }
        }
        return null;
    }

    @Override
    public void onMetadataUpdate(MetadataDelta delta, MetadataImage newImage) {
        for (Map.Entry<String, ReloadableSslContext> entry : contexts.entrySet()) {
            String listener = entry.getKey();
            Map<String, String> dynamic = dynamicKeystoreKeys(newImage, listener);
            if (dynamic.equals(applied.getOrDefault(listener, Map.of()))) {
                continue;
            }
            applied.put(listener, dynamic);
            try {
                ListenerSecurity.Tls next = next(listener, dynamic);
                entry.getValue().replace(TlsContexts.serverContext(listener, next));
                security.outgoingTlsContexts().reloaded(listener, next);
                log.info(
                        "Reloaded the keystore of listener {} for new connections, accepted and {} of this node's own"
                                + " clients ({})",
                        listener,
                        security.outgoingTlsContexts().clients(listener),
                        dynamic.isEmpty() ? "back to server.properties" : "keys " + new TreeMap<>(dynamic).keySet());
            } catch (ConfigException e) {
                // checked before it was stored, so only a file changed or removed since: keep serving the old one
                log.error("Keeping the current keystore of listener {}: {}", listener, e.getMessage());
            }
        }
    }

    @Override
    public String name() {
        return "keystore reload";
    }

    /** This node's dynamic keystore keys for a listener, without the {@code listener.name.<l>.} prefix. */
    private Map<String, String> dynamicKeystoreKeys(MetadataImage image, String listener) {
        Map<String, String> out = new HashMap<>();
        image.configs().configs(ConfigResource.broker(nodeId)).forEach((key, value) -> {
            if (listener.equals(keystoreListener(key))) {
                out.put(key, value);
            }
        });
        return out;
    }

    /** The server context of the listener's settings with {@code dynamic} over them; throws when it does not load. */
    private SslContext build(String listener, Map<String, String> dynamic) {
        return TlsContexts.serverContext(listener, next(listener, dynamic));
    }

    /** The listener's TLS settings with the dynamic keys over the static ones. */
    private ListenerSecurity.Tls next(String listener, Map<String, String> dynamic) {
        ListenerSecurity.Tls tls = security.forListener(listener).tls();
        String prefix = "listener.name." + listener.toLowerCase(Locale.ROOT) + ".";
        Map<String, String> values = new HashMap<>();
        dynamic.forEach((key, value) -> values.put(key.substring(prefix.length()), value));
        if (values.isEmpty()) {
            return tls;
        }
        // the dynamic keys over the static ones; a new location replaces PEM text and the other way round
        String type = values.getOrDefault("ssl.keystore.type", tls.keystoreType())
                .trim()
                .toUpperCase(Locale.ROOT);
        if (!List.of("JKS", "PKCS12", "PEM").contains(type)) {
            throw new ConfigException(prefix + "ssl.keystore.type=" + type + " is not a keystore type Varve reads:"
                    + " use JKS, PKCS12 or PEM.");
        }
        boolean pemText =
                values.containsKey("ssl.keystore.certificate.chain") || values.containsKey("ssl.keystore.key");
        String location = values.containsKey("ssl.keystore.location")
                ? values.get("ssl.keystore.location")
                : pemText ? null : tls.keystoreLocation();
        String chain = pemText
                ? values.get("ssl.keystore.certificate.chain")
                : location != null ? null : tls.keystoreCertificateChain();
        String key = pemText ? values.get("ssl.keystore.key") : location != null ? null : tls.keystoreKey();
        if ((location == null) == (chain == null)
                || (chain == null) != (key == null)
                || (chain != null && !type.equals("PEM"))) {
            throw new ConfigException("give either " + prefix + "ssl.keystore.location, or (with ssl.keystore.type=PEM)"
                    + " both ssl.keystore.certificate.chain and ssl.keystore.key.");
        }
        // the truststore likewise: PEM text or a location, a new one of either replacing the other
        String truststoreType = values.getOrDefault("ssl.truststore.type", tls.truststoreType())
                .trim()
                .toUpperCase(Locale.ROOT);
        if (!List.of("JKS", "PKCS12", "PEM").contains(truststoreType)) {
            throw new ConfigException(prefix + "ssl.truststore.type=" + truststoreType + " is not a truststore type"
                    + " Varve reads: use JKS, PKCS12 or PEM.");
        }
        String trustCertificates = values.containsKey("ssl.truststore.certificates")
                ? values.get("ssl.truststore.certificates")
                : values.containsKey("ssl.truststore.location") ? null : tls.truststoreCertificates();
        String trustLocation = trustCertificates != null ? null : tls.truststoreLocation();
        if (trustCertificates != null && !truststoreType.equals("PEM")) {
            throw new ConfigException(prefix + "ssl.truststore.certificates needs ssl.truststore.type=PEM.");
        }
        ListenerSecurity.Tls next = new ListenerSecurity.Tls(
                type,
                location,
                values.getOrDefault("ssl.keystore.password", tls.keystorePassword()),
                values.getOrDefault("ssl.key.password", tls.keyPassword()),
                chain,
                key,
                truststoreType,
                trustCertificates != null ? null : values.getOrDefault("ssl.truststore.location", trustLocation),
                values.getOrDefault("ssl.truststore.password", tls.truststorePassword()),
                trustCertificates,
                tls.clientAuth(),
                tls.enabledProtocols(),
                tls.cipherSuites(),
                tls.principalMappingRules(),
                tls.keyManagerAlgorithm(),
                tls.trustManagerAlgorithm());
        TlsContexts.clientContext(listener, next, false); // the broker's own clients must load it too
        return next;
    }

    /** The listener (upper case, as named in listeners) a {@code listener.name.<l>.<keystore key>} is for; else null. */
    static String keystoreListener(String key) {
        if (!key.startsWith("listener.name.")) {
            return null;
        }
        String rest = key.substring("listener.name.".length());
        int dot = rest.indexOf('.');
        if (dot <= 0 || !KEYSTORE_KEYS.contains(rest.substring(dot + 1))) {
            return null;
        }
        return rest.substring(0, dot).toUpperCase(Locale.ROOT);
    }
}
