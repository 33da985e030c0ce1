package io.varve.broker.observe;

import io.varve.broker.config.BrokerConfig;
import io.varve.broker.security.BrokerAuthorizer;
import io.varve.broker.security.ListenerSecurity;
import io.varve.broker.security.SecurityConfig;
import io.varve.broker.security.TlsContexts;
import io.varve.http.HttpEndpoint;
import io.varve.http.HttpSecurity;
import io.varve.http.view.ConsoleAuthorization;
import io.varve.metadata.image.MetadataImage;
import io.varve.security.Principal;
import io.varve.security.authorizer.AclOperation;
import io.varve.security.authorizer.ResourceType;
import io.varve.security.sasl.ScramCredential;
import io.varve.security.sasl.ScramMechanism;
import io.varve.security.ssl.PrincipalMappingRules;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP listener's security from {@code varve.http.*}: TLS for its {@code https://} endpoints ({@code
 * varve.http.ssl.*}, each key falling back to the broker's {@code ssl.*}), and {@code varve.http.authentication}:
 * {@code basic} (HTTP Basic against the broker's SCRAM credentials, then the PLAIN users of its SASL listeners) and/or
 * {@code mtls} (a client certificate, named by {@code ssl.principal.mapping.rules} as on a Kafka listener). A broker
 * with an authorizer refuses to start with an endpoint reachable off the loopback interface and no authentication.
 */
public final class HttpListenerSecurity {
    private static final Logger log = LoggerFactory.getLogger(HttpListenerSecurity.class);
    public static final String AUTHENTICATION_KEY = "varve.http.authentication";
    public static final String PREFIX = "varve.http.";

    private HttpListenerSecurity() {}

    /**
     * Builds the listener's security, or throws a {@link ConfigException} of one sentence naming the key when the
     * configuration cannot be honoured.
     */
    public static HttpSecurity from(BrokerConfig config, Supplier<MetadataImage> image) {
        List<HttpEndpoint> endpoints = config.httpListeners();
        Map<String, String> originals = config.originals();
        Set<HttpSecurity.Method> methods = methods(originals.get(AUTHENTICATION_KEY));
        boolean anyHttps = endpoints.stream().anyMatch(HttpEndpoint::tls);
        ListenerSecurity.Tls tls = anyHttps ? SecurityConfig.prefixedTls(originals, PREFIX) : null;
        if (methods.contains(HttpSecurity.Method.MTLS)) {
            for (HttpEndpoint e : endpoints) {
                if (!e.tls()) {
                    throw new ConfigException(AUTHENTICATION_KEY + "=mtls needs TLS, but varve.http.listeners has " + e
                            + ": make it https:// (or add basic to " + AUTHENTICATION_KEY + ").");
                }
            }
            if (tls.clientAuth() == ListenerSecurity.ClientAuth.NONE) {
                throw new ConfigException(AUTHENTICATION_KEY + "=mtls needs client certificates: set " + PREFIX
                        + "ssl.client.auth=required (or requested, with basic as well).");
            }
        }
        if (methods.isEmpty() && config.security().authorization() != null) {
            for (HttpEndpoint e : endpoints) {
                if (!e.loopbackOnly()) {
                    throw new ConfigException("varve.http.listeners: " + e + " is reachable off the loopback"
                            + " interface of a broker with an authorizer, but " + AUTHENTICATION_KEY + " is not set:"
                            + " set it to basic or mtls, or bind the listener to 127.0.0.1.");
                }
            }
        }
        if (methods.contains(HttpSecurity.Method.BASIC)) {
            for (HttpEndpoint e : endpoints) {
                if (!e.tls() && !e.loopbackOnly()) {
                    log.warn(
                            "{} takes passwords (HTTP Basic) in clear text off the loopback interface: use https://",
                            e);
                }
            }
        }
        PrincipalMappingRules rules = tls == null ? null : tls.principalMappingRules();
        return new HttpSecurity(
                tls == null ? null : TlsContexts.serverContext("HTTP (" + PREFIX + "ssl.*)", tls),
                methods,
                methods.contains(HttpSecurity.Method.BASIC) ? basic(image, plainUsers(config)) : null,
                rules == null ? null : certificate -> certificatePrincipal(rules, certificate));
    }

    static Set<HttpSecurity.Method> methods(String value) {
        Set<HttpSecurity.Method> methods = EnumSet.noneOf(HttpSecurity.Method.class);
        if (value == null) {
            return methods;
        }
        for (String part : value.split(",")) {
            String name = part.trim().toLowerCase(Locale.ROOT);
            switch (name) {
                case "" -> {}
                case "basic" -> methods.add(HttpSecurity.Method.BASIC);
                case "mtls" -> methods.add(HttpSecurity.Method.MTLS);
                default ->
                    throw new ConfigException("Invalid value '" + part.trim() + "' for configuration "
                            + AUTHENTICATION_KEY + ": use basic, mtls or both (comma-separated).");
            }
        }
        return methods;
    }

    /** Every PLAIN user of the broker's SASL listeners (a user on two listeners must have one password). */
    private static Map<String, String> plainUsers(BrokerConfig config) {
        Map<String, String> users = new HashMap<>();
        config.listeners().forEach(l -> {
            ListenerSecurity.Sasl sasl = config.security().forListener(l.name()).sasl();
            if (sasl != null) {
                users.putAll(sasl.plainUsers());
            }
        });
        return Map.copyOf(users);
    }

    /**
     * SCRAM first: the user's SHA-512 or SHA-256 credential in the metadata image, checked by deriving the stored key
     * from the password; else a PLAIN user's password. Comparisons take constant time.
     */
    static HttpSecurity.BasicVerifier basic(Supplier<MetadataImage> image, Map<String, String> plainUsers) {
        return (user, password) -> {
            boolean scramUser = false;
            for (ScramMechanism m : List.of(ScramMechanism.SCRAM_SHA_512, ScramMechanism.SCRAM_SHA_256)) {
                Optional<ScramCredential> stored = image.get()
                        .scram()
                        .credential(user, m.typeId())
                        .map(c -> new ScramCredential(c.salt(), c.storedKey(), c.serverKey(), c.iterations()));
                if (stored.isPresent()) {
                    scramUser = true;
                    ScramCredential c = stored.get();
                    if (MessageDigest.isEqual(
                            m.credential(password, c.salt(), c.iterations()).storedKey(), c.storedKey())) {
                        return Optional.of(Principal.user(user).toString());
                    }
                }
            }
            String plain = scramUser ? null : plainUsers.get(user);
            if (plain != null
                    && MessageDigest.isEqual(
                            plain.getBytes(StandardCharsets.UTF_8), password.getBytes(StandardCharsets.UTF_8))) {
                return Optional.of(Principal.user(user).toString());
            }
            return Optional.empty();
        };
    }

    /** The certificate's subject through the mapping rules, as a Kafka TLS listener names it; null when none maps. */
    static String certificatePrincipal(PrincipalMappingRules rules, X509Certificate certificate) {
        return rules.map(certificate.getSubjectX500Principal().getName())
                .map(name -> Principal.user(name).toString())
                .orElse(null);
    }

    /** The console's ACL check over the broker's authorizer; everything allowed without one. */
    public static ConsoleAuthorization authorization(BrokerAuthorizer authorizer) {
        if (authorizer == null) {
            return ConsoleAuthorization.ALLOW_ALL;
        }
        return (principal, host, operation, type, name) -> {
            Optional<AclOperation> op = enumNamed(AclOperation.values(), operation);
            Optional<ResourceType> resource = enumNamed(ResourceType.values(), type);
            if (op.isEmpty() || resource.isEmpty()) {
                throw new IllegalArgumentException("no ACL operation " + operation + " on " + type);
            }
            return authorizer.authorize(Principal.parse(principal), host, op.get(), resource.get(), name);
        };
    }

    private static <E extends Enum<E>> Optional<E> enumNamed(E[] values, String name) {
        for (E e : values) {
            if (e.name().equalsIgnoreCase(name)) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }
}
