package io.varve.broker.security;

import io.varve.broker.config.ConfigException;
import io.varve.broker.config.ListenerConfig;
import io.varve.security.oauthbearer.OAuthBearerExchange;
import io.varve.security.sasl.JaasConfig;
import io.varve.security.sasl.PlainExchange;
import io.varve.security.sasl.ScramMechanism;
import io.varve.security.ssl.PrincipalMappingRules;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.KeyManagerFactory;

/**
 * The security side of the broker's configuration, with Kafka's keys: per listener its protocol ({@code
 * listener.security.protocol.map}) and the {@code ssl.*} / {@code sasl.*} settings it uses, each key overridable per
 * listener as {@code listener.name.<listener>.<key>} (and the JAAS text as {@code
 * listener.name.<listener>.<mechanism>.sasl.jaas.config}).
 *
 * <p>Fail closed: a security key Varve does not honour, one no listener would use, a mechanism Varve does not offer,
 * an authorizer other than Varve's own ({@code authorizer.class.name} naming Kafka's StandardAuthorizer), {@code
 * super.users} without an authorizer, or a SASL listener the broker connects to itself without a mechanism and
 * credentials its own connections can log in with stops start-up with one sentence naming the key,
 * rather than leaving a broker that serves everyone while its operator believes it is protected.
 */
public final class SecurityConfig {
    /** {@code ssl.*} keys Varve honours on a TLS listener. */
    private static final Set<String> TLS_KEYS = Set.of(
            "ssl.keystore.type",
            "ssl.keystore.location",
            "ssl.keystore.password",
            "ssl.key.password",
            "ssl.keystore.certificate.chain",
            "ssl.keystore.key",
            "ssl.truststore.type",
            "ssl.truststore.location",
            "ssl.truststore.password",
            "ssl.truststore.certificates",
            "ssl.client.auth",
            "ssl.enabled.protocols",
            "ssl.cipher.suites",
            "ssl.principal.mapping.rules",
            "ssl.protocol",
            "ssl.keymanager.algorithm",
            "ssl.trustmanager.algorithm");
    /** {@code sasl.*} keys Varve honours on a SASL listener. */
    private static final Set<String> SASL_KEYS = Set.of("sasl.enabled.mechanisms", "sasl.jaas.config");
    /** OAUTHBEARER's keys (Kafka's {@code sasl.oauthbearer.*} as its OAuthBearerValidatorCallbackHandler reads them). */
    private static final Set<String> OAUTHBEARER_KEYS = Set.of(
            OAuthBearerSettings.JWKS_URL,
            OAuthBearerSettings.JWKS_REFRESH_MS,
            OAuthBearerSettings.JWKS_RETRY_BACKOFF_MS,
            OAuthBearerSettings.JWKS_RETRY_BACKOFF_MAX_MS,
            OAuthBearerSettings.EXPECTED_ISSUER,
            OAuthBearerSettings.EXPECTED_AUDIENCE,
            OAuthBearerSettings.SUB_CLAIM_NAME,
            OAuthBearerSettings.SCOPE_CLAIM_NAME,
            OAuthBearerSettings.CLOCK_SKEW_SECONDS,
            OAuthBearerSettings.CALLBACK_HANDLER_KEY);
    /**
     * Keys for the broker's own outgoing connections (read by {@link #verifiesHostname} and {@link #outgoingSasl}):
     * accepted anywhere, there is nothing for them to weaken.
     */
    private static final Set<String> OUTGOING_KEYS = Set.of(
            "ssl.endpoint.identification.algorithm",
            "sasl.mechanism.inter.broker.protocol",
            "sasl.mechanism.controller.protocol");
    /** Authorization keys. */
    private static final Set<String> AUTHORIZER_KEYS =
            Set.of("authorizer.class.name", "super.users", "allow.everyone.if.no.acl.found");
    /** The class names that switch on Varve's own authorizer (ACLs in the metadata log, Kafka's semantics). */
    public static final Set<String> AUTHORIZER_CLASSES =
            Set.of("org.apache.kafka.metadata.authorizer.StandardAuthorizer");

    /** What Varve's own connections log in with (GSSAPI would need Kerberos). */
    private static final List<String> OWN_CONNECTION_MECHANISMS = List.of(
            PlainExchange.MECHANISM,
            ScramMechanism.SCRAM_SHA_256.mechanismName(),
            ScramMechanism.SCRAM_SHA_512.mechanismName(),
            OAuthBearerExchange.MECHANISM);

    static final List<String> SUPPORTED_MECHANISMS = List.of(
            PlainExchange.MECHANISM,
            ScramMechanism.SCRAM_SHA_256.mechanismName(),
            ScramMechanism.SCRAM_SHA_512.mechanismName(),
            OAuthBearerExchange.MECHANISM);

    private static final String FAILED_AUTHENTICATION_DELAY_KEY = "connection.failed.authentication.delay.ms";
    /** KIP-368; also as {@code listener.name.<l>[.<mechanism>].connections.max.reauth.ms}. */
    private static final String MAX_REAUTH_KEY = "connections.max.reauth.ms";

    /** What {@code authorizer.class.name} switches on; null without an authorizer. */
    public record Authorization(Set<String> superUsers, boolean allowEveryoneIfNoAclFound) {}

    private final Map<String, ListenerSecurity> byListener;
    private final Map<String, OutgoingSasl> outgoingSasl;
    /** The one mutable part: the broker's own TLS clients, which keystore reloads reach. */
    private final OutgoingTlsContexts outgoingTlsContexts = new OutgoingTlsContexts();
    /** And the tokens of the broker's own OAUTHBEARER logins, one per listener, started when first asked for. */
    private final Map<String, OAuthBearerLogin> oauthBearerLogins = new java.util.concurrent.ConcurrentHashMap<>();

    private final long failedAuthenticationDelayMs;
    private final Authorization authorization;

    private SecurityConfig(
            Map<String, ListenerSecurity> byListener,
            Map<String, OutgoingSasl> outgoingSasl,
            long failedAuthenticationDelayMs,
            Authorization authorization) {
        this.byListener = byListener;
        this.outgoingSasl = outgoingSasl;
        this.failedAuthenticationDelayMs = failedAuthenticationDelayMs;
        this.authorization = authorization;
    }

    /** The authorizer's settings, or null when {@code authorizer.class.name} is not set (everyone may do anything). */
    public Authorization authorization() {
        return authorization;
    }

    private static Authorization authorization(Map<String, String> originals) {
        String className = originals.get("authorizer.class.name");
        if (className == null || className.isBlank()) {
            for (String key : List.of("super.users", "allow.everyone.if.no.acl.found")) {
                if (originals.containsKey(key)) {
                    throw new ConfigException(key + " is set, but authorizer.class.name is not, so no ACL would be"
                            + " enforced: set authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer"
                            + " or remove " + key + ".");
                }
            }
            return null;
        }
        if (!AUTHORIZER_CLASSES.contains(className.trim())) {
            throw new ConfigException("authorizer.class.name=" + className.trim() + " is not an authorizer Varve runs:"
                    + " use org.apache.kafka.metadata.authorizer.StandardAuthorizer (ACLs in the metadata log).");
        }
        Set<String> superUsers = new java.util.LinkedHashSet<>();
        String list = originals.getOrDefault("super.users", "");
        for (String entry : list.split(";")) {
            String principal = entry.trim();
            if (principal.isEmpty()) {
                continue;
            }
            int colon = principal.indexOf(':');
            if (colon <= 0 || colon == principal.length() - 1) {
                throw new ConfigException("super.users entry '" + principal
                        + "' is not a principal: expected Type:name, for example User:admin, separated by ';'.");
            }
            superUsers.add(principal);
        }
        String allowEveryone = originals
                .getOrDefault("allow.everyone.if.no.acl.found", "false")
                .trim();
        if (!allowEveryone.equalsIgnoreCase("true") && !allowEveryone.equalsIgnoreCase("false")) {
            throw new ConfigException("Invalid value '" + allowEveryone
                    + "' for configuration allow.everyone.if.no.acl.found: expected true or false.");
        }
        return new Authorization(Set.copyOf(superUsers), Boolean.parseBoolean(allowEveryone));
    }

    /** True for a key this class reads or refuses (so the broker does not call it unknown). */
    public static boolean owns(String key) {
        return key.startsWith("ssl.")
                || key.startsWith("sasl.")
                || key.startsWith("listener.name.")
                || AUTHORIZER_KEYS.contains(key)
                || key.equals(FAILED_AUTHENTICATION_DELAY_KEY)
                || key.equals(MAX_REAUTH_KEY);
    }

    /**
     * Reads and checks the security keys for {@code listeners}; {@code ownConnections} are the listeners the broker
     * itself connects to (controller, inter-broker), each with the key that names its SASL mechanism ({@code
     * sasl.mechanism.controller.protocol} / {@code sasl.mechanism.inter.broker.protocol}).
     */
    public static SecurityConfig parse(
            Map<String, String> originals, List<ListenerConfig> listeners, Map<String, String> ownConnections) {
        return parse(originals, listeners, ownConnections, Map.of());
    }

    /**
     * As above; {@code outgoingOnly} are listeners this node only connects to (a broker-only node's controller
     * listener) with their protocol: their {@code listener.name.<l>.ssl.*} / {@code .sasl.jaas.config} and the plain
     * keys are used, by the node's clients.
     */
    public static SecurityConfig parse(
            Map<String, String> originals,
            List<ListenerConfig> listeners,
            Map<String, String> ownConnections,
            Map<String, String> outgoingOnly) {
        Authorization authorization = authorization(originals);
        Map<String, ListenerSecurity> byListener = new LinkedHashMap<>();
        Map<String, SecurityProtocol> protocols = new LinkedHashMap<>();
        for (ListenerConfig listener : listeners) {
            SecurityProtocol protocol = protocol(listener.name(), listener.securityProtocol());
            protocols.put(listener.name(), protocol);
            Keys keys = Keys.forListener(originals, listener.name());
            ListenerSecurity.Tls tls = protocol.tls() ? tls(keys) : null;
            ListenerSecurity.Sasl sasl = protocol.sasl() ? sasl(keys) : null;
            byListener.put(listener.name(), new ListenerSecurity(listener.name(), protocol, tls, sasl));
        }
        outgoingOnly.forEach((name, protocol) -> protocols.putIfAbsent(name, protocol(name, protocol)));
        Map<String, OutgoingSasl> outgoingSasl = new LinkedHashMap<>();
        ownConnections.forEach((name, mechanismKey) -> {
            SecurityProtocol protocol = protocols.getOrDefault(name, SecurityProtocol.PLAINTEXT);
            if (protocol.sasl()) {
                outgoingSasl.put(name, outgoingSasl(originals, name, mechanismKey, byListener.get(name)));
            }
        });
        checkEveryKeyIsUsed(originals, byListener, outgoingOnly);
        long delayMs = 100;
        String delay = originals.get(FAILED_AUTHENTICATION_DELAY_KEY);
        if (delay != null) {
            try {
                delayMs = Long.parseLong(delay.trim());
            } catch (NumberFormatException e) {
                delayMs = -1;
            }
            if (delayMs < 0) {
                throw new ConfigException("Invalid value '" + delay + "' for configuration "
                        + FAILED_AUTHENTICATION_DELAY_KEY + ": expected a number of milliseconds, at least 0.");
            }
        }
        return new SecurityConfig(Map.copyOf(byListener), Map.copyOf(outgoingSasl), delayMs, authorization);
    }

    private static SecurityProtocol protocol(String listenerName, String protocol) {
        return SecurityProtocol.forName(protocol)
                .orElseThrow(() -> new ConfigException("listener.security.protocol.map maps listener " + listenerName
                        + " to " + protocol
                        + ", which is not a security protocol: use PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL."));
    }

    /**
     * What the broker's own connections to a SASL listener log in with: the mechanism {@code mechanismKey} names
     * (Kafka's default GSSAPI is refused), and the {@code username} / {@code password} of that listener's JAAS entry
     * for the mechanism ({@code listener.name.<l>.<mechanism>.sasl.jaas.config}, as Kafka reads it; for PLAIN the same
     * entry holds the server's {@code user_<name>} passwords). When this node also serves the listener, the mechanism
     * must be one it enables.
     */
    private static OutgoingSasl outgoingSasl(
            Map<String, String> originals, String listenerName, String mechanismKey, ListenerSecurity served) {
        String mechanism = originals.getOrDefault(mechanismKey, "GSSAPI").trim();
        if (!OWN_CONNECTION_MECHANISMS.contains(mechanism)) {
            throw new ConfigException(mechanismKey + "=" + mechanism
                    + (originals.containsKey(mechanismKey) ? "" : " (Kafka's default)") + " is not a mechanism Varve's"
                    + " own connections to listener " + listenerName + " speak: use PLAIN, SCRAM-SHA-256,"
                    + " SCRAM-SHA-512 or OAUTHBEARER.");
        }
        if (served != null && !served.sasl().enabledMechanisms().contains(mechanism)) {
            throw new ConfigException(mechanismKey + "=" + mechanism + " is not in the sasl.enabled.mechanisms of"
                    + " listener " + listenerName + " ("
                    + String.join(",", served.sasl().enabledMechanisms())
                    + "): enable it there, or the other nodes could not log in.");
        }
        Keys keys = Keys.forListener(originals, listenerName);
        String jaasKey = mechanism.toLowerCase(Locale.ROOT) + ".sasl.jaas.config";
        String text = keys.get(jaasKey);
        String source = keys.source(jaasKey);
        if (text == null) {
            text = originals.get("sasl.jaas.config");
            source = "sasl.jaas.config";
        }
        if (mechanism.equals(OAuthBearerExchange.MECHANISM)) {
            JaasConfig jaas = null;
            if (text != null) {
                try {
                    jaas = JaasConfig.parse(source, text);
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(e.getMessage());
                }
            }
            OAuthBearerLoginSettings login =
                    OAuthBearerLoginSettings.parse(originals, listenerName, jaas, text == null ? null : source);
            return new OutgoingSasl(mechanism, login.who(), null, login);
        }
        if (text == null) {
            throw new ConfigException(keys.prefix + jaasKey + " is not set, but the broker's own connections to"
                    + " listener " + listenerName + " log in with " + mechanism + ": give its username=\"...\" and"
                    + " password=\"...\" there.");
        }
        JaasConfig jaas;
        try {
            jaas = JaasConfig.parse(source, text);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage());
        }
        String username = jaas.options().get("username");
        String password = jaas.options().get("password");
        if (username == null || username.isEmpty() || password == null) {
            throw new ConfigException(source + " has no username=\"...\" and password=\"...\", which the broker's"
                    + " own connections to listener " + listenerName + " log in with.");
        }
        return new OutgoingSasl(mechanism, username, password, null);
    }

    /**
     * The SASL login of the broker's own connections to {@code listenerName}; null when that listener does not speak
     * SASL (or is not one the broker connects to).
     */
    public OutgoingSasl outgoingSasl(String listenerName) {
        return outgoingSasl.get(listenerName);
    }

    /**
     * A mechanism and the credentials of its JAAS entry (for OAUTHBEARER: how its token is got, {@code username} the
     * client id, no password); the password is never logged.
     */
    public record OutgoingSasl(
            String mechanism, String username, String password, OAuthBearerLoginSettings oauthBearer) {
        public OutgoingSasl(String mechanism, String username, String password) {
            this(mechanism, username, password, null);
        }

        @Override
        public String toString() {
            return "OutgoingSasl(" + mechanism + " as " + username + ")";
        }
    }

    /**
     * The token source of the broker's own OAUTHBEARER connections to {@code listenerName}, shared by all of them and
     * started on the first call (not at parse time, which stays free of threads and I/O).
     */
    public OAuthBearerLogin oauthBearerLogin(String listenerName) {
        OutgoingSasl sasl = outgoingSasl.get(listenerName);
        if (sasl == null || sasl.oauthBearer() == null) {
            throw new IllegalStateException("the broker's connections to " + listenerName + " do not use OAUTHBEARER");
        }
        return oauthBearerLogins.computeIfAbsent(listenerName, name -> {
            OAuthBearerLogin login = new OAuthBearerLogin(sasl.oauthBearer(), name, System::currentTimeMillis);
            login.start();
            return login;
        });
    }

    /** Stops the token refreshes of {@link #oauthBearerLogin} (the node is stopping). */
    public void closeOutgoingLogins() {
        oauthBearerLogins.values().forEach(OAuthBearerLogin::close);
        oauthBearerLogins.clear();
    }

    /** The security of a listener of {@code listeners}; PLAINTEXT for one it was not built with. */
    public ListenerSecurity forListener(String listenerName) {
        return byListener.getOrDefault(listenerName, ListenerSecurity.plaintext(listenerName));
    }

    /** The broker's own TLS clients per listener, which a keystore reload hands the new settings. */
    public OutgoingTlsContexts outgoingTlsContexts() {
        return outgoingTlsContexts;
    }

    /** {@code connection.failed.authentication.delay.ms} (Kafka's default 100): the base of the per-address delay. */
    public long failedAuthenticationDelayMs() {
        return failedAuthenticationDelayMs;
    }

    /**
     * The TLS settings of the HTTP listener's {@code https://} endpoints: the {@code ssl.*} keys under {@code
     * prefix} ({@code varve.http.}), each falling back to the broker's plain {@code ssl.*} key, checked as a Kafka
     * listener's are.
     */
    public static ListenerSecurity.Tls prefixedTls(Map<String, String> originals, String prefix) {
        return tls(new Keys(originals, prefix));
    }

    /**
     * The TLS settings of the broker's own connections to {@code listenerName}: the same {@code
     * listener.name.<l>.ssl.*} / {@code ssl.*} keys a TLS listener of that name reads (so a keystore is required: it
     * is the broker's client certificate), checked the same way.
     */
    public static ListenerSecurity.Tls outgoingTls(Map<String, String> originals, String listenerName) {
        return tls(Keys.forListener(originals, listenerName));
    }

    /**
     * {@code ssl.endpoint.identification.algorithm} for connections to {@code listenerName} (its {@code
     * listener.name.<l>.} override first): true (Kafka's default {@code https}) when the peer's certificate must
     * name the host connected to, false when it is set empty.
     */
    public static boolean verifiesHostname(Map<String, String> originals, String listenerName) {
        String key = "ssl.endpoint.identification.algorithm";
        String override = "listener.name." + listenerName.toLowerCase(Locale.ROOT) + "." + key;
        String source = originals.containsKey(override) ? override : key;
        String value = originals.getOrDefault(source, "https").trim();
        if (value.isEmpty()) {
            return false;
        }
        if (!value.equalsIgnoreCase("https")) {
            throw new ConfigException("Invalid value '" + value + "' for configuration " + source
                    + ": use https (check the peer's hostname) or leave it empty (do not check).");
        }
        return true;
    }

    /** A listener's view of the keys: its {@code listener.name.<name>.} override first, then the plain key. */
    private static final class Keys {
        private final Map<String, String> originals;
        private final String prefix;

        /** The keys under {@code prefix} first, then the plain ones. */
        Keys(Map<String, String> originals, String prefix) {
            this.originals = originals;
            this.prefix = prefix;
        }

        static Keys forListener(Map<String, String> originals, String listenerName) {
            return new Keys(originals, "listener.name." + listenerName.toLowerCase(Locale.ROOT) + ".");
        }

        /** The value, or null when unset or blank (an empty override unsets the plain key for this listener). */
        String get(String key) {
            String override = originals.get(prefix + key);
            String value = override != null ? override : originals.get(key);
            return value == null || value.isBlank() ? null : value;
        }

        /** The name a value came from, for error messages. */
        String source(String key) {
            return originals.containsKey(prefix + key) ? prefix + key : key;
        }

        String get(String key, String defaultValue) {
            String value = get(key);
            return value == null || value.isBlank() ? defaultValue : value.trim();
        }

        List<String> list(String key, List<String> defaultValue) {
            String value = get(key);
            if (value == null) {
                return defaultValue;
            }
            return Arrays.stream(value.split(","))
                    .map(String::trim)
                    .filter(s -> !s.isEmpty())
                    .toList();
        }
    }

    private static ListenerSecurity.Tls tls(Keys keys) {
        String keystoreType = keys.get("ssl.keystore.type", "JKS").toUpperCase(Locale.ROOT);
        String location = keys.get("ssl.keystore.location");
        String chain = keys.get("ssl.keystore.certificate.chain");
        String key = keys.get("ssl.keystore.key");
        if (!Set.of("JKS", "PKCS12", "PEM").contains(keystoreType)) {
            throw new ConfigException(keys.source("ssl.keystore.type") + "=" + keystoreType
                    + " is not a keystore type Varve reads: use JKS, PKCS12 or PEM.");
        }
        if ((chain != null || key != null) && !keystoreType.equals("PEM")) {
            throw new ConfigException(keys.source(chain != null ? "ssl.keystore.certificate.chain" : "ssl.keystore.key")
                    + " is set, which needs ssl.keystore.type=PEM.");
        }
        if ((chain == null) != (key == null)) {
            throw new ConfigException(keys.source(chain == null ? "ssl.keystore.key" : "ssl.keystore.certificate.chain")
                    + " is set without its partner: give both ssl.keystore.certificate.chain and ssl.keystore.key.");
        }
        if (location == null && chain == null) {
            throw new ConfigException(keys.source("ssl.keystore.location")
                    + " is not set, but a TLS listener needs the broker's key and certificate: set it (or, with"
                    + " ssl.keystore.type=PEM, ssl.keystore.certificate.chain and ssl.keystore.key).");
        }
        if (location != null && chain != null) {
            throw new ConfigException(keys.source("ssl.keystore.location")
                    + " and ssl.keystore.certificate.chain are both set: give the keystore one way.");
        }
        String truststoreType = keys.get("ssl.truststore.type", "JKS").toUpperCase(Locale.ROOT);
        if (!Set.of("JKS", "PKCS12", "PEM").contains(truststoreType)) {
            throw new ConfigException(keys.source("ssl.truststore.type") + "=" + truststoreType
                    + " is not a truststore type Varve reads: use JKS, PKCS12 or PEM.");
        }
        String trustCertificates = keys.get("ssl.truststore.certificates");
        if (trustCertificates != null && !truststoreType.equals("PEM")) {
            throw new ConfigException(
                    keys.source("ssl.truststore.certificates") + " is set, which needs ssl.truststore.type=PEM.");
        }
        String clientAuthText = keys.get("ssl.client.auth", "none").toUpperCase(Locale.ROOT);
        ListenerSecurity.ClientAuth clientAuth;
        try {
            clientAuth = ListenerSecurity.ClientAuth.valueOf(clientAuthText);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("Invalid value '" + keys.get("ssl.client.auth") + "' for configuration "
                    + keys.source("ssl.client.auth") + ": must be one of none, requested, required.");
        }
        String truststoreLocation = keys.get("ssl.truststore.location");
        if (clientAuth != ListenerSecurity.ClientAuth.NONE && truststoreLocation == null && trustCertificates == null) {
            throw new ConfigException(keys.source("ssl.client.auth") + "=" + clientAuthText.toLowerCase(Locale.ROOT)
                    + " needs the certificates clients are checked against: set ssl.truststore.location"
                    + " (or ssl.truststore.certificates with ssl.truststore.type=PEM).");
        }
        String protocol = keys.get("ssl.protocol", "TLSv1.3");
        if (!Set.of("TLS", "TLSv1.2", "TLSv1.3").contains(protocol)) {
            throw new ConfigException(keys.source("ssl.protocol") + "=" + protocol
                    + " is not a protocol Varve offers: use TLSv1.3, TLSv1.2 or TLS.");
        }
        List<String> protocols = keys.list("ssl.enabled.protocols", List.of("TLSv1.2", "TLSv1.3"));
        for (String p : protocols) {
            if (!p.equals("TLSv1.2") && !p.equals("TLSv1.3")) {
                throw new ConfigException(keys.source("ssl.enabled.protocols") + " names " + p
                        + ", which Varve does not offer: use TLSv1.2 and TLSv1.3.");
            }
        }
        if (protocols.isEmpty()) {
            throw new ConfigException(
                    keys.source("ssl.enabled.protocols") + " names no protocol: use TLSv1.2,TLSv1.3.");
        }
        PrincipalMappingRules rules;
        try {
            String text = keys.get("ssl.principal.mapping.rules");
            rules = text == null ? PrincipalMappingRules.DEFAULT : PrincipalMappingRules.parse(text);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage() + " (" + keys.source("ssl.principal.mapping.rules") + ").");
        }
        return new ListenerSecurity.Tls(
                keystoreType,
                location,
                keys.get("ssl.keystore.password"),
                keys.get("ssl.key.password"),
                chain,
                key,
                truststoreType,
                truststoreLocation,
                keys.get("ssl.truststore.password"),
                trustCertificates,
                clientAuth,
                protocols,
                keys.list("ssl.cipher.suites", List.of()),
                rules,
                keys.get("ssl.keymanager.algorithm", KeyManagerFactory.getDefaultAlgorithm()),
                keys.get("ssl.trustmanager.algorithm", "PKIX"));
    }

    private static ListenerSecurity.Sasl sasl(Keys keys) {
        List<String> mechanisms = keys.list("sasl.enabled.mechanisms", List.of("GSSAPI"));
        if (mechanisms.isEmpty()) {
            throw new ConfigException(keys.source("sasl.enabled.mechanisms")
                    + " names no mechanism: use PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER.");
        }
        for (String mechanism : mechanisms) {
            if (!SUPPORTED_MECHANISMS.contains(mechanism)) {
                throw new ConfigException(keys.source("sasl.enabled.mechanisms") + " names " + mechanism
                        + (keys.get("sasl.enabled.mechanisms") == null ? " (Kafka's default)" : "")
                        + ", which Varve does not offer: use PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER.");
            }
        }
        Map<String, String> plainUsers = Map.of();
        if (mechanisms.contains(PlainExchange.MECHANISM)) {
            String jaasKey = "plain.sasl.jaas.config";
            String text = keys.get(jaasKey);
            String source = keys.source(jaasKey);
            if (text == null) {
                text = keys.originals.get("sasl.jaas.config");
                source = "sasl.jaas.config";
            }
            if (text == null) {
                throw new ConfigException(keys.prefix + jaasKey
                        + " is not set, but PLAIN is enabled: give the users as PlainLoginModule user_<name>=\"<password>\""
                        + " entries.");
            }
            JaasConfig jaas;
            try {
                jaas = JaasConfig.parse(source, text);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(e.getMessage());
            }
            if (!jaas.loginModule().equals("org.apache.kafka.common.security.plain.PlainLoginModule")) {
                throw new ConfigException(source + " names " + jaas.loginModule()
                        + ", but PLAIN's users are read from org.apache.kafka.common.security.plain.PlainLoginModule.");
            }
            plainUsers = jaas.plainUsers();
            if (plainUsers.isEmpty()) {
                throw new ConfigException(
                        source + " has no user_<name>=\"<password>\" entry, so nobody could log in" + " with PLAIN.");
            }
        }
        OAuthBearerSettings oauthBearer = mechanisms.contains(OAuthBearerExchange.MECHANISM)
                ? OAuthBearerSettings.parse(keys::get, keys::source, keys.prefix)
                : null;
        Map<String, Long> maxReauthMs = new LinkedHashMap<>();
        for (String mechanism : mechanisms) {
            String key = mechanism.toLowerCase(Locale.ROOT) + "." + MAX_REAUTH_KEY;
            String value = keys.get(key);
            String source = keys.source(key);
            if (value == null) {
                value = keys.get(MAX_REAUTH_KEY);
                source = keys.source(MAX_REAUTH_KEY);
            }
            long ms = 0;
            if (value != null) {
                try {
                    ms = Long.parseLong(value.trim());
                } catch (NumberFormatException e) {
                    ms = -1;
                }
                if (ms < 0) {
                    throw new ConfigException("Invalid value '" + value + "' for configuration " + source
                            + ": expected a number of milliseconds, at least 0 (0: no re-authentication).");
                }
            }
            maxReauthMs.put(mechanism, ms);
        }
        return new ListenerSecurity.Sasl(mechanisms, plainUsers, oauthBearer, Map.copyOf(maxReauthMs));
    }

    /** Refuses a key no listener uses or Varve does not know, so nothing the operator wrote is silently dropped. */
    private static void checkEveryKeyIsUsed(
            Map<String, String> originals, Map<String, ListenerSecurity> byListener, Map<String, String> outgoingOnly) {
        Map<String, SecurityProtocol> outgoing = new LinkedHashMap<>();
        outgoingOnly.forEach((name, protocol) -> outgoing.put(name, protocol(name, protocol)));
        boolean anyTls = outgoing.values().stream().anyMatch(SecurityProtocol::tls)
                || byListener.values().stream().anyMatch(l -> l.protocol().tls());
        boolean anySasl = outgoing.values().stream().anyMatch(SecurityProtocol::sasl)
                || byListener.values().stream().anyMatch(l -> l.protocol().sasl());
        List<String> sorted = new ArrayList<>(originals.keySet());
        sorted.sort(null);
        for (String key : sorted) {
            if (key.startsWith("listener.name.")) {
                String rest = key.substring("listener.name.".length());
                int dot = rest.indexOf('.');
                String name = dot < 0 ? rest : rest.substring(0, dot).toUpperCase(Locale.ROOT);
                ListenerSecurity listener = byListener.get(name);
                if (listener == null && dot > 0 && outgoing.containsKey(name)) {
                    SecurityProtocol protocol = outgoing.get(name);
                    checkKey(key, rest.substring(dot + 1), protocol.tls(), protocol.sasl());
                    continue;
                }
                if (listener == null || dot < 0) {
                    throw new ConfigException(key + " names listener " + name + ", which is not in listeners.");
                }
                checkKey(
                        key,
                        rest.substring(dot + 1),
                        listener.protocol().tls(),
                        listener.protocol().sasl());
            } else if (key.startsWith("ssl.") || key.startsWith("sasl.")) {
                checkKey(key, key, anyTls, anySasl);
            }
        }
    }

    private static void checkKey(String key, String suffix, boolean tls, boolean sasl) {
        if (OUTGOING_KEYS.contains(suffix) || suffix.equals("max.connection.creation.rate")) {
            return; // read elsewhere: the outgoing keys by the broker's clients, the rate by BrokerConfig
        }
        String loginKey = suffix.startsWith("oauthbearer.") ? suffix.substring("oauthbearer.".length()) : suffix;
        if (OAuthBearerLoginSettings.KEYS.contains(loginKey)) {
            if (!sasl) {
                throw new ConfigException(key + " is set, but no listener it applies to uses SASL_PLAINTEXT or"
                        + " SASL_SSL: map a listener to one of them in listener.security.protocol.map, or remove"
                        + " the key.");
            }
            return; // read by OAuthBearerLoginSettings for the broker's own OAUTHBEARER connections
        }
        boolean jaasForMechanism = forMechanism(suffix, ".sasl.jaas.config");
        boolean reauthForMechanism = suffix.equals(MAX_REAUTH_KEY) || forMechanism(suffix, "." + MAX_REAUTH_KEY);
        if (TLS_KEYS.contains(suffix)) {
            if (!tls) {
                throw new ConfigException(key + " is set, but no listener it applies to uses SSL or SASL_SSL: map"
                        + " a listener to one of them in listener.security.protocol.map, or remove the key.");
            }
        } else if (SASL_KEYS.contains(suffix)
                || OAUTHBEARER_KEYS.contains(suffix)
                || jaasForMechanism
                || reauthForMechanism) {
            if (!sasl) {
                throw new ConfigException(key + " is set, but no listener it applies to uses SASL_PLAINTEXT or"
                        + " SASL_SSL: map a listener to one of them in listener.security.protocol.map, or remove"
                        + " the key.");
            }
        } else {
            throw new ConfigException(
                    key
                            + " is a listener or security key this Varve version does not honour: remove it rather than rely on it.");
        }
    }

    /** True for {@code <mechanism><ending>} with a mechanism Varve offers, e.g. {@code plain.sasl.jaas.config}. */
    private static boolean forMechanism(String suffix, String ending) {
        return suffix.endsWith(ending)
                && SUPPORTED_MECHANISMS.contains(
                        suffix.substring(0, suffix.length() - ending.length()).toUpperCase(Locale.ROOT));
    }
}
