package io.varve.broker.registry;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsExchange;
import io.varve.broker.config.BrokerConfig;
import io.varve.broker.config.ListenerConfig;
import io.varve.broker.security.BrokerAuthorizer;
import io.varve.broker.security.ListenerSecurity;
import io.varve.broker.security.SecurityConfig;
import io.varve.metadata.image.MetadataImage;
import io.varve.registry.RegistryException;
import io.varve.registry.rest.RegistryAccess;
import io.varve.registry.rest.RestServer;
import io.varve.registry.state.RegistryState;
import io.varve.security.Principal;
import io.varve.security.authorizer.AclOperation;
import io.varve.security.authorizer.ResourceType;
import io.varve.security.sasl.ScramCredential;
import io.varve.security.sasl.ScramMechanism;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.TrustManagerFactory;

/**
 * The registry listener's security, borrowed from one Kafka listener ({@code varve.schema.registry.security.listener})
 * so that it has the same principals: that listener's keystore, truststore and client authentication for https; for a
 * SASL listener, HTTP Basic against its PLAIN users and the SCRAM credentials of the metadata; for an SSL listener that
 * asks for client certificates, the certificate's principal through its {@code ssl.principal.mapping.rules}. With
 * {@code authorizer.class.name} set, Kafka's ACLs decide, on a resource of type TOPIC named {@code subject:<subject>}
 * (a name no topic can have: ':' is not legal in topic names), and on the CLUSTER for the global level and mode.
 */
final class RegistrySecurity implements RegistryAccess {
    static final String KEY = "varve.schema.registry.security.listener";
    static final String SUBJECT_PREFIX = "subject:";

    private final ListenerSecurity listener;
    private final Supplier<MetadataImage> image;
    private final BrokerAuthorizer authorizer;

    private RegistrySecurity(ListenerSecurity listener, Supplier<MetadataImage> image, BrokerAuthorizer authorizer) {
        this.listener = listener;
        this.image = image;
        this.authorizer = authorizer;
    }

    /** The listener's security for {@code config}, refused in one sentence naming the key when it cannot be used. */
    static RestServer.Security of(BrokerConfig config, Supplier<MetadataImage> image) {
        String name = config.schemaRegistrySecurityListener();
        boolean https = RestServer.isHttps(config.schemaRegistryListeners());
        SecurityConfig.Authorization authorization = config.security().authorization();
        BrokerAuthorizer authorizer = authorization == null
                ? null
                : new BrokerAuthorizer(image, authorization.superUsers(), authorization.allowEveryoneIfNoAclFound());
        if (name.isEmpty()) {
            if (https) {
                throw new IllegalArgumentException(RestServer.LISTENERS_KEY + " is https: set " + KEY
                        + " to the SSL or SASL_SSL listener whose keystore it serves with");
            }
            RegistrySecurity open = new RegistrySecurity(ListenerSecurity.plaintext(""), image, authorizer);
            return new RestServer.Security(null, RestServer.ClientAuth.NONE, null, open);
        }
        if (config.listeners().stream().map(ListenerConfig::name).noneMatch(name::equals)) {
            throw new IllegalArgumentException(KEY + ": '" + name + "' is not one of the listeners");
        }
        ListenerSecurity ls = config.security().forListener(name);
        if (https != ls.protocol().tls()) {
            throw new IllegalArgumentException(KEY + ": listener " + name + " is " + ls.protocol() + ", but "
                    + RestServer.LISTENERS_KEY + " is " + (https ? "https" : "http")
                    + ": use https with an SSL or SASL_SSL listener, http with a PLAINTEXT or SASL_PLAINTEXT one");
        }
        RegistrySecurity access = new RegistrySecurity(ls, image, authorizer);
        if (!https) {
            return new RestServer.Security(null, RestServer.ClientAuth.NONE, null, access);
        }
        ListenerSecurity.Tls tls = ls.tls();
        RestServer.ClientAuth clientAuth = ls.protocol().sasl()
                ? RestServer.ClientAuth.NONE
                : switch (tls.clientAuth()) {
                    case NONE -> RestServer.ClientAuth.NONE;
                    case REQUESTED -> RestServer.ClientAuth.REQUESTED;
                    case REQUIRED -> RestServer.ClientAuth.REQUIRED;
                };
        return new RestServer.Security(tlsContext(name, tls, false), clientAuth, tlsContext(name, tls, true), access);
    }

    /**
     * A JDK TLS context from the listener's keystore and truststore (PKCS12 or JKS); the client one, for forwarded
     * writes, trusts the keystore's own certificates too when there is no truststore (nodes sharing one certificate).
     */
    private static SSLContext tlsContext(String name, ListenerSecurity.Tls tls, boolean client) {
        if ("PEM".equals(tls.keystoreType()) || "PEM".equals(tls.truststoreType())) {
            throw new IllegalArgumentException(KEY + ": listener " + name
                    + " has PEM key material, which the registry's https listener does not read: use PKCS12 or JKS");
        }
        try {
            KeyStore keys = load(tls.keystoreType(), tls.keystoreLocation(), tls.keystorePassword());
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(tls.keyManagerAlgorithm());
            String keyPassword = tls.keyPassword() != null ? tls.keyPassword() : tls.keystorePassword();
            kmf.init(keys, keyPassword == null ? new char[0] : keyPassword.toCharArray());
            KeyStore trust = tls.truststoreLocation() != null
                    ? load(tls.truststoreType(), tls.truststoreLocation(), tls.truststorePassword())
                    : client ? keys : null;
            TrustManagerFactory tmf = null;
            if (trust != null) {
                tmf = TrustManagerFactory.getInstance(tls.trustManagerAlgorithm());
                tmf.init(trust);
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException(
                    KEY + ": the keystore or truststore of listener " + name + " cannot be used: " + e.getMessage(), e);
        }
    }

    private static KeyStore load(String type, String location, String password)
            throws GeneralSecurityException, IOException {
        KeyStore store = KeyStore.getInstance(type);
        try (InputStream in = new FileInputStream(location)) {
            store.load(in, password == null ? null : password.toCharArray());
        }
        return store;
    }

    @Override
    public String authenticate(HttpExchange exchange) {
        if (listener.protocol().sasl()) {
            return basic(exchange.getRequestHeaders().getFirst("Authorization")).toString();
        }
        if (listener.tls() != null && exchange instanceof HttpsExchange https) {
            return certificatePrincipal(https).toString();
        }
        return Principal.ANONYMOUS.toString();
    }

    /** HTTP Basic: the user and password of the listener's PLAIN users, or of a SCRAM credential it enables. */
    private Principal basic(String header) {
        if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
            throw unauthorized();
        }
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(header.substring(6).trim()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw unauthorized();
        }
        int colon = decoded.indexOf(':');
        if (colon <= 0) {
            throw unauthorized();
        }
        String user = decoded.substring(0, colon);
        String password = decoded.substring(colon + 1);
        ListenerSecurity.Sasl sasl = listener.sasl();
        Map<String, String> plain = sasl.enabledMechanisms().contains("PLAIN") ? sasl.plainUsers() : Map.of();
        String expected = plain.get(user);
        if (expected != null
                && MessageDigest.isEqual(
                        expected.getBytes(StandardCharsets.UTF_8), password.getBytes(StandardCharsets.UTF_8))) {
            return Principal.user(user);
        }
        for (String mechanismName : sasl.enabledMechanisms()) {
            Optional<ScramMechanism> mechanism = ScramMechanism.forName(mechanismName);
            if (mechanism.isEmpty()) {
                continue;
            }
            Optional<ScramCredential> stored = image.get()
                    .scram()
                    .credential(user, mechanism.get().typeId())
                    .map(c -> new ScramCredential(c.salt(), c.storedKey(), c.serverKey(), c.iterations()));
            if (stored.isPresent() && scramMatches(mechanism.get(), stored.get(), password)) {
                return Principal.user(user);
            }
        }
        throw unauthorized();
    }

    private static boolean scramMatches(ScramMechanism mechanism, ScramCredential stored, String password) {
        ScramCredential candidate = mechanism.credential(password, stored.salt(), stored.iterations());
        return MessageDigest.isEqual(candidate.storedKey(), stored.storedKey());
    }

    private Principal certificatePrincipal(HttpsExchange exchange) {
        Certificate[] chain;
        try {
            chain = exchange.getSSLSession().getPeerCertificates();
        } catch (SSLPeerUnverifiedException e) {
            return Principal.ANONYMOUS;
        }
        if (chain.length == 0 || !(chain[0] instanceof X509Certificate certificate)) {
            return Principal.ANONYMOUS;
        }
        return listener.tls()
                .principalMappingRules()
                .map(certificate.getSubjectX500Principal().getName())
                .map(Principal::user)
                .orElseThrow(RegistrySecurity::unauthorized);
    }

    private static RegistryException unauthorized() {
        return new RegistryException(401, 40101, "Unauthorized: missing or wrong credentials");
    }

    @Override
    public boolean allowed(String principal, String host, Operation operation, String subject) {
        if (authorizer == null) {
            return true;
        }
        AclOperation op =
                switch (operation) {
                    case DESCRIBE -> AclOperation.DESCRIBE;
                    case WRITE -> AclOperation.WRITE;
                    case DELETE -> AclOperation.DELETE;
                    case DESCRIBE_CONFIGS -> AclOperation.DESCRIBE_CONFIGS;
                    case ALTER_CONFIGS -> AclOperation.ALTER_CONFIGS;
                };
        return subject.equals(RegistryState.GLOBAL)
                ? authorizer.authorize(
                        Principal.parse(principal), host, op, ResourceType.CLUSTER, BrokerAuthorizer.CLUSTER_NAME)
                : authorizer.authorize(
                        Principal.parse(principal), host, op, ResourceType.TOPIC, SUBJECT_PREFIX + subject);
    }
}
