package io.varve.broker.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.broker.config.BrokerConfig;
import io.varve.broker.config.ConfigException;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SecurityConfigTest {
    private static final String PLAIN_JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required"
            + " username=\"admin\" password=\"admin-secret\" user_admin=\"admin-secret\" user_alice=\"alice-secret\";";

    private static BrokerConfig config(String... keyValues) {
        Map<String, String> props = new HashMap<>();
        props.put("log.dirs", "/tmp/unused");
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put(keyValues[i], keyValues[i + 1]);
        }
        return BrokerConfig.fromMap(props);
    }

    private static void refused(String message, String... keyValues) {
        assertThatThrownBy(() -> config(keyValues))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(message);
    }

    @Test
    void thePlaintextDefaultHasNoTlsOrSasl() {
        ListenerSecurity plaintext = config().security().forListener("PLAINTEXT");
        assertThat(plaintext.protocol()).isEqualTo(SecurityProtocol.PLAINTEXT);
        assertThat(plaintext.tls()).isNull();
        assertThat(plaintext.sasl()).isNull();
    }

    @Test
    void namedListenersTakeTheirProtocolFromTheMapAndPerListenerOverridesWin() {
        BrokerConfig config = config(
                "listeners", "INTERNAL://127.0.0.1:0,EXTERNAL://127.0.0.1:0,AUTH://127.0.0.1:0",
                "listener.security.protocol.map", "INTERNAL:PLAINTEXT,EXTERNAL:SSL,AUTH:SASL_SSL,CONTROLLER:PLAINTEXT",
                "inter.broker.listener.name", "INTERNAL",
                "ssl.keystore.location", "/ks.p12",
                "ssl.keystore.type", "PKCS12",
                "listener.name.auth.ssl.keystore.location", "/auth.jks",
                "listener.name.auth.ssl.keystore.type", "JKS",
                "ssl.client.auth", "required",
                "ssl.truststore.location", "/ts.jks",
                "listener.name.auth.ssl.client.auth", "none",
                "listener.name.auth.sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512",
                "listener.name.auth.plain.sasl.jaas.config", PLAIN_JAAS,
                "ssl.principal.mapping.rules", "RULE:^CN=(.*?),.*$/$1/L,DEFAULT");
        SecurityConfig security = config.security();
        assertThat(security.forListener("INTERNAL").protocol()).isEqualTo(SecurityProtocol.PLAINTEXT);
        ListenerSecurity external = security.forListener("EXTERNAL");
        assertThat(external.protocol()).isEqualTo(SecurityProtocol.SSL);
        assertThat(external.tls().keystoreLocation()).isEqualTo("/ks.p12");
        assertThat(external.tls().keystoreType()).isEqualTo("PKCS12");
        assertThat(external.tls().clientAuth()).isEqualTo(ListenerSecurity.ClientAuth.REQUIRED);
        assertThat(external.tls().principalMappingRules().map("CN=Alice,O=x")).contains("alice");
        ListenerSecurity auth = security.forListener("AUTH");
        assertThat(auth.tls().keystoreLocation()).isEqualTo("/auth.jks");
        assertThat(auth.tls().clientAuth()).isEqualTo(ListenerSecurity.ClientAuth.NONE);
        assertThat(auth.sasl().enabledMechanisms()).containsExactly("PLAIN", "SCRAM-SHA-512");
        assertThat(auth.sasl().plainUsers()).containsOnlyKeys("admin", "alice");
        assertThat(config.unknownKeys()).isEmpty();
    }

    @Test
    void securityKeysThatNoListenerUsesStopStartUp() {
        refused("ssl.keystore.location is set, but no listener", "ssl.keystore.location", "/ks.jks");
        refused("sasl.enabled.mechanisms is set, but no listener", "sasl.enabled.mechanisms", "PLAIN");
        refused("sasl.jaas.config is set, but no listener", "sasl.jaas.config", PLAIN_JAAS);
        refused(
                "listener.name.plaintext.ssl.keystore.location is set, but no listener",
                "listener.name.plaintext.ssl.keystore.location",
                "/ks.jks");
        refused("names listener NOPE, which is not in listeners", "listener.name.nope.ssl.client.auth", "none");
        refused(
                "ssl.engine.factory.class is a listener or security key this Varve version does not honour",
                "listeners",
                "SSL://127.0.0.1:0",
                "ssl.keystore.location",
                "/ks.jks",
                "ssl.engine.factory.class",
                "x.Y");
    }

    @Test
    void kafkasStandardAuthorizerSwitchesOnVarvesAndOtherAuthorizersAreRefused() {
        assertThat(config().security().authorization()).isNull();
        SecurityConfig.Authorization on = config(
                        "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                        "super.users", "User:admin;User:CN=broker,O=x",
                        "allow.everyone.if.no.acl.found", "true")
                .security()
                .authorization();
        assertThat(on.superUsers()).containsExactlyInAnyOrder("User:admin", "User:CN=broker,O=x");
        assertThat(on.allowEveryoneIfNoAclFound()).isTrue();
        refused("is not an authorizer Varve runs", "authorizer.class.name", "kafka.security.authorizer.AclAuthorizer");
        refused("super.users is set, but authorizer.class.name is not", "super.users", "User:admin");
        refused(
                "is not a principal",
                "authorizer.class.name",
                "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "super.users",
                "admin");
    }

    @Test
    void tlsListenersNeedAKeystoreAndClientAuthNeedsATruststore() {
        refused("ssl.keystore.location is not set", "listeners", "SSL://127.0.0.1:0");
        refused(
                "ssl.client.auth=required needs",
                "listeners",
                "SSL://127.0.0.1:0",
                "ssl.keystore.location",
                "/ks.jks",
                "ssl.client.auth",
                "required");
        refused(
                "must be one of none, requested, required",
                "listeners",
                "SSL://127.0.0.1:0",
                "ssl.keystore.location",
                "/ks.jks",
                "ssl.client.auth",
                "maybe");
        refused(
                "TLSv1.1, which Varve does not offer",
                "listeners",
                "SSL://127.0.0.1:0",
                "ssl.keystore.location",
                "/ks.jks",
                "ssl.enabled.protocols",
                "TLSv1.1,TLSv1.2");
        refused(
                "needs ssl.keystore.type=PEM",
                "listeners",
                "SSL://127.0.0.1:0",
                "ssl.keystore.certificate.chain",
                "-----BEGIN CERTIFICATE-----",
                "ssl.keystore.key",
                "k");
        refused(
                "without its partner",
                "listeners",
                "SSL://127.0.0.1:0",
                "ssl.keystore.type",
                "PEM",
                "ssl.keystore.key",
                "k");
        refused(
                "invalid rule",
                "listeners",
                "SSL://127.0.0.1:0",
                "ssl.keystore.location",
                "/ks.jks",
                "ssl.principal.mapping.rules",
                "NONSENSE");
    }

    @Test
    void saslListenersNeedMechanismsVarveOffersAndPlainNeedsUsers() {
        refused("GSSAPI (Kafka's default), which Varve does not offer", "listeners", "SASL_PLAINTEXT://127.0.0.1:0");
        refused(
                "XOAUTH2, which Varve does not offer",
                "listeners",
                "SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms",
                "XOAUTH2");
        refused(
                "listener.name.sasl_plaintext.plain.sasl.jaas.config is not set",
                "listeners",
                "SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms",
                "PLAIN");
        refused(
                "has no user_<name>",
                "listeners",
                "SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms",
                "PLAIN",
                "sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"a\";");
        refused(
                "but PLAIN's users are read from",
                "listeners",
                "SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms",
                "PLAIN",
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required;");
        ListenerSecurity scramOnly = config(
                        "listeners",
                        "SASL_PLAINTEXT://127.0.0.1:0",
                        "sasl.enabled.mechanisms",
                        "SCRAM-SHA-256",
                        "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config",
                        "org.apache.kafka.common.security.scram.ScramLoginModule required;")
                .security()
                .forListener("SASL_PLAINTEXT");
        assertThat(scramOnly.sasl().enabledMechanisms()).containsExactly("SCRAM-SHA-256");
        assertThat(scramOnly.sasl().plainUsers()).isEmpty();
    }

    @Test
    void theBrokersOwnConnectionsMayBeSslOrSasl() {
        ListenerSecurity controller = config(
                        "listeners", "PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0",
                        "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:SSL",
                        "controller.quorum.voters", "1@127.0.0.1:9093",
                        "ssl.keystore.location", "/ks.jks")
                .security()
                .forListener("CONTROLLER");
        assertThat(controller.protocol()).isEqualTo(SecurityProtocol.SSL);
        ListenerSecurity interBroker = config(
                        "listeners", "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0",
                        "inter.broker.listener.name", "SSL",
                        "ssl.keystore.location", "/ks.jks")
                .security()
                .forListener("SSL");
        assertThat(interBroker.protocol()).isEqualTo(SecurityProtocol.SSL);
        SecurityConfig.OutgoingSasl login = config(
                        "listeners", "PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0",
                        "inter.broker.listener.name", "SASL_SSL",
                        "ssl.keystore.location", "/ks.jks",
                        "sasl.enabled.mechanisms", "PLAIN",
                        "sasl.mechanism.inter.broker.protocol", "PLAIN",
                        "listener.name.sasl_ssl.plain.sasl.jaas.config", PLAIN_JAAS)
                .security()
                .outgoingSasl("SASL_SSL");
        assertThat(login).isEqualTo(new SecurityConfig.OutgoingSasl("PLAIN", "admin", "admin-secret"));
        assertThat(login.toString()).doesNotContain("admin-secret");
        refused(
                "which is not a security protocol",
                "listeners",
                "X://127.0.0.1:0",
                "listener.security.protocol.map",
                "X:KERBEROS");
    }

    private static final String[] SASL_INTER_BROKER = {
        "listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
        "inter.broker.listener.name", "SASL_PLAINTEXT",
        "sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config", PLAIN_JAAS
    };

    private static String[] saslInterBroker(String... more) {
        String[] all = java.util.Arrays.copyOf(SASL_INTER_BROKER, SASL_INTER_BROKER.length + more.length);
        System.arraycopy(more, 0, all, SASL_INTER_BROKER.length, more.length);
        return all;
    }

    @Test
    void theBrokersSaslLoginIsReadFromTheListenersJaasEntryForItsMechanismAsKafkaReadsIt() {
        SecurityConfig.OutgoingSasl scram = config(saslInterBroker(
                        "sasl.mechanism.inter.broker.protocol",
                        "SCRAM-SHA-512",
                        "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config",
                        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"broker\""
                                + " password=\"broker-secret\";"))
                .security()
                .outgoingSasl("SASL_PLAINTEXT");
        assertThat(scram).isEqualTo(new SecurityConfig.OutgoingSasl("SCRAM-SHA-512", "broker", "broker-secret"));
        assertThat(config(saslInterBroker("sasl.mechanism.inter.broker.protocol", "PLAIN"))
                        .security()
                        .outgoingSasl("PLAINTEXT"))
                .isNull();
    }

    @Test
    void securityInterBrokerProtocolNamesTheListenerOfThatNameAsInKafka() {
        BrokerConfig config = config(
                "listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
                "security.inter.broker.protocol", "SASL_PLAINTEXT",
                "sasl.enabled.mechanisms", "PLAIN",
                "sasl.mechanism.inter.broker.protocol", "PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config", PLAIN_JAAS);
        assertThat(config.interBrokerListenerName()).isEqualTo("SASL_PLAINTEXT");
        assertThat(config.security().outgoingSasl("SASL_PLAINTEXT").username()).isEqualTo("admin");
        refused(
                "inter.broker.listener.name and security.inter.broker.protocol are both set",
                saslInterBroker("security.inter.broker.protocol", "SASL_PLAINTEXT"));
    }

    @Test
    void aSaslLoginVarveCannotMakeStopsStartUpWithOneSentence() {
        refused("sasl.mechanism.inter.broker.protocol=GSSAPI (Kafka's default) is not a mechanism", SASL_INTER_BROKER);
        refused(
                "sasl.mechanism.inter.broker.protocol=OAUTHBEARER is not in the sasl.enabled.mechanisms of listener"
                        + " SASL_PLAINTEXT",
                saslInterBroker("sasl.mechanism.inter.broker.protocol", "OAUTHBEARER"));
        refused(
                "sasl.mechanism.inter.broker.protocol=SCRAM-SHA-256 is not in the sasl.enabled.mechanisms of listener"
                        + " SASL_PLAINTEXT (PLAIN,SCRAM-SHA-512)",
                saslInterBroker("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-256"));
        refused(
                "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config is not set",
                saslInterBroker("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512"));
        refused(
                "has no username=",
                "listeners",
                "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
                "inter.broker.listener.name",
                "SASL_PLAINTEXT",
                "sasl.enabled.mechanisms",
                "PLAIN",
                "sasl.mechanism.inter.broker.protocol",
                "PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_admin=\"admin-secret\";");
    }

    @Test
    void aSaslControllerListenerAuthenticatesWithPlainOrOauthBearerButNotScram() {
        String[] controller = {
            "listeners", "PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0",
            "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:SASL_PLAINTEXT",
            "controller.quorum.voters", "1@127.0.0.1:9093",
            "sasl.mechanism.controller.protocol", "PLAIN",
            "listener.name.controller.plain.sasl.jaas.config", PLAIN_JAAS
        };
        String[] plain = java.util.Arrays.copyOf(controller, controller.length + 2);
        plain[controller.length] = "listener.name.controller.sasl.enabled.mechanisms";
        plain[controller.length + 1] = "PLAIN";
        assertThat(config(plain).security().outgoingSasl("CONTROLLER").username())
                .isEqualTo("admin");
        String[] scram = plain.clone();
        scram[scram.length - 1] = "PLAIN,SCRAM-SHA-256";
        refused("a controller listener authenticates with PLAIN or OAUTHBEARER only", scram);
        SecurityConfig.OutgoingSasl oauth = config(
                        "listeners", "PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0",
                        "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:SASL_PLAINTEXT",
                        "controller.quorum.voters", "1@127.0.0.1:9093",
                        "listener.name.controller.sasl.enabled.mechanisms", "OAUTHBEARER",
                        "sasl.mechanism.controller.protocol", "OAUTHBEARER",
                        "listener.name.controller.oauthbearer.sasl.server.callback.handler.class", VALIDATOR,
                        "listener.name.controller.oauthbearer.sasl.login.callback.handler.class", LOGIN_HANDLER,
                        "listener.name.controller.oauthbearer.sasl.jaas.config", OAUTH_LOGIN_JAAS,
                        "sasl.oauthbearer.jwks.endpoint.url", "https://idp.test/jwks",
                        "sasl.oauthbearer.token.endpoint.url", "https://idp.test/token")
                .security()
                .outgoingSasl("CONTROLLER");
        assertThat(oauth.mechanism()).isEqualTo("OAUTHBEARER");
        assertThat(oauth.oauthBearer().clientId()).isEqualTo("broker");
    }

    @Test
    void aBrokerOnlyNodeLogsInToTheControllersSaslListenerWithItsJaasEntry() {
        BrokerConfig broker = config(
                "process.roles", "broker",
                "node.id", "101",
                "controller.quorum.voters", "1@127.0.0.1:9093",
                "listeners", "PLAINTEXT://127.0.0.1:0",
                "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:SASL_SSL",
                "ssl.keystore.location", "/ks.jks",
                "sasl.mechanism.controller.protocol", "PLAIN",
                "listener.name.controller.plain.sasl.jaas.config", PLAIN_JAAS);
        assertThat(broker.security().outgoingSasl("CONTROLLER"))
                .isEqualTo(new SecurityConfig.OutgoingSasl("PLAIN", "admin", "admin-secret"));
    }

    @Test
    void aBrokerOnlyNodeUsesItsSslKeysForTheControllersSslListener() {
        BrokerConfig broker = config(
                "process.roles", "broker",
                "node.id", "101",
                "controller.quorum.voters", "1@127.0.0.1:9093",
                "listeners", "PLAINTEXT://127.0.0.1:0",
                "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:SSL",
                "ssl.keystore.location", "/ks.jks",
                "listener.name.controller.ssl.truststore.location", "/ts.jks");
        assertThat(broker.securityProtocolOf("CONTROLLER")).isEqualTo("SSL");
        assertThat(SecurityConfig.outgoingTls(broker.originals(), "CONTROLLER").truststoreLocation())
                .isEqualTo("/ts.jks");
        refused(
                "names listener OTHER, which is not in listeners",
                "process.roles",
                "broker",
                "node.id",
                "101",
                "controller.quorum.voters",
                "1@127.0.0.1:9093",
                "listeners",
                "PLAINTEXT://127.0.0.1:0",
                "listener.security.protocol.map",
                "PLAINTEXT:PLAINTEXT,CONTROLLER:SSL",
                "ssl.keystore.location",
                "/ks.jks",
                "listener.name.other.ssl.truststore.location",
                "/ts.jks");
    }

    @Test
    void hostnameVerificationIsOnByDefaultAndOffWhenTheAlgorithmIsEmpty() {
        assertThat(SecurityConfig.verifiesHostname(Map.of(), "SSL")).isTrue();
        assertThat(SecurityConfig.verifiesHostname(Map.of("ssl.endpoint.identification.algorithm", "HTTPS"), "SSL"))
                .isTrue();
        assertThat(SecurityConfig.verifiesHostname(Map.of("ssl.endpoint.identification.algorithm", ""), "SSL"))
                .isFalse();
        assertThat(SecurityConfig.verifiesHostname(
                        Map.of(
                                "ssl.endpoint.identification.algorithm", "",
                                "listener.name.ssl.ssl.endpoint.identification.algorithm", "https"),
                        "SSL"))
                .isTrue();
        assertThatThrownBy(() ->
                        SecurityConfig.verifiesHostname(Map.of("ssl.endpoint.identification.algorithm", "ldap"), "SSL"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ssl.endpoint.identification.algorithm");
    }

    private static final String VALIDATOR =
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler";
    private static final String LOGIN_HANDLER =
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler";
    private static final String OAUTH_LOGIN_JAAS =
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId=\"broker\""
                    + " clientSecret=\"broker-secret\" scope=\"kafka\";";

    /** An inter-broker OAUTHBEARER listener as a Kafka server.properties gives it, less what {@code drop} names. */
    private static String[] oauthInterBroker(java.util.Set<String> drop, String... more) {
        java.util.List<String> all = new java.util.ArrayList<>(java.util.List.of(
                "listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
                "inter.broker.listener.name", "SASL_PLAINTEXT",
                "sasl.enabled.mechanisms", "OAUTHBEARER",
                "sasl.mechanism.inter.broker.protocol", "OAUTHBEARER",
                "listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class", VALIDATOR,
                "listener.name.sasl_plaintext.oauthbearer.sasl.login.callback.handler.class", LOGIN_HANDLER,
                "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config", OAUTH_LOGIN_JAAS,
                "sasl.oauthbearer.jwks.endpoint.url", "https://idp.test/jwks",
                "sasl.oauthbearer.token.endpoint.url", "https://idp.test/token"));
        for (int i = 0; i < all.size(); i += 2) {
            if (drop.contains(all.get(i))) {
                all.remove(i);
                all.remove(i);
                i -= 2;
            }
        }
        all.addAll(java.util.List.of(more));
        return all.toArray(String[]::new);
    }

    @Test
    void theBrokersOauthBearerLoginReadsKafkasTokenEndpointKeysAndJaasEntry() {
        SecurityConfig.OutgoingSasl login = config(oauthInterBroker(
                        java.util.Set.of(),
                        "listener.name.sasl_plaintext.oauthbearer.sasl.login.refresh.window.factor",
                        "0.5",
                        "sasl.login.refresh.buffer.seconds",
                        "30",
                        "sasl.login.connect.timeout.ms",
                        "2500"))
                .security()
                .outgoingSasl("SASL_PLAINTEXT");
        assertThat(login.mechanism()).isEqualTo("OAUTHBEARER");
        OAuthBearerLoginSettings oauth = login.oauthBearer();
        assertThat(oauth.tokenEndpoint()).hasToString("https://idp.test/token");
        assertThat(oauth.clientId()).isEqualTo("broker");
        assertThat(oauth.clientSecret()).isEqualTo("broker-secret");
        assertThat(oauth.scope()).isEqualTo("kafka");
        assertThat(oauth.refresh().windowFactor()).isEqualTo(0.5);
        assertThat(oauth.refresh().bufferMs()).isEqualTo(30_000);
        assertThat(oauth.refresh().minPeriodMs()).isEqualTo(60_000);
        assertThat(oauth.connectTimeoutMs()).isEqualTo(2_500);
        assertThat(login.toString() + oauth).doesNotContain("broker-secret");
        // KIP-1139's keys instead of the JAAS options
        OAuthBearerLoginSettings kip1139 = config(oauthInterBroker(
                        java.util.Set.of("listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config"),
                        "sasl.oauthbearer.client.credentials.client.id",
                        "svc",
                        "sasl.oauthbearer.client.credentials.client.secret",
                        "svc-secret",
                        "sasl.oauthbearer.scope",
                        "kafka"))
                .security()
                .outgoingSasl("SASL_PLAINTEXT")
                .oauthBearer();
        assertThat(kip1139.clientId()).isEqualTo("svc");
        assertThat(kip1139.clientSecret()).isEqualTo("svc-secret");
    }

    @Test
    void anOauthBearerLoginVarveCannotMakeStopsStartUpWithOneSentence() {
        refused(
                "listener.name.sasl_plaintext.oauthbearer.sasl.login.callback.handler.class is not set",
                oauthInterBroker(java.util.Set.of(
                        "listener.name.sasl_plaintext.oauthbearer.sasl.login.callback.handler.class")));
        refused(
                "listener.name.sasl_plaintext.oauthbearer.sasl.oauthbearer.token.endpoint.url is not set",
                oauthInterBroker(java.util.Set.of("sasl.oauthbearer.token.endpoint.url")));
        refused(
                "has no clientId=",
                oauthInterBroker(
                        java.util.Set.of("listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config"),
                        "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config",
                        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;"));
        refused(
                "asks for an unsecured OAUTHBEARER login",
                oauthInterBroker(
                        java.util.Set.of("listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config"),
                        "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config",
                        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required"
                                + " unsecuredLoginStringClaim_sub=\"broker\";"));
        refused(
                "gives SASL extensions (extension_...)",
                oauthInterBroker(
                        java.util.Set.of("listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config"),
                        "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config",
                        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required"
                                + " clientId=\"broker\" clientSecret=\"s\" extension_traceId=\"123\";"));
        refused(
                "is not a URL Varve gets a token from",
                oauthInterBroker(
                        java.util.Set.of("sasl.oauthbearer.token.endpoint.url"),
                        "sasl.oauthbearer.token.endpoint.url",
                        "ldap://idp.test/token"));
        refused(
                "is not a retriever Varve runs",
                oauthInterBroker(
                        java.util.Set.of(),
                        "sasl.oauthbearer.jwt.retriever.class",
                        "org.apache.kafka.common.security.oauthbearer.JwtBearerJwtRetriever"));
        refused(
                "sasl.login.refresh.window.factor",
                oauthInterBroker(java.util.Set.of(), "sasl.login.refresh.window.factor", "0.2"));
        refused(
                "sasl.oauthbearer.token.endpoint.url is set, but no listener it applies to uses SASL",
                "sasl.oauthbearer.token.endpoint.url",
                "https://idp.test/token");
    }

    @Test
    void oauthBearerReadsKafkasKeysForTheListener() {
        ListenerSecurity listener = config(
                        "listeners", "SASL_SSL://127.0.0.1:0",
                        "ssl.keystore.location", "/ks.jks",
                        "sasl.enabled.mechanisms", "OAUTHBEARER",
                        "listener.name.sasl_ssl.oauthbearer.sasl.server.callback.handler.class", VALIDATOR,
                        "listener.name.sasl_ssl.oauthbearer.sasl.jaas.config",
                                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;",
                        "sasl.oauthbearer.jwks.endpoint.url", "https://idp.test/jwks",
                        "sasl.oauthbearer.expected.audience", "varve, kafka",
                        "sasl.oauthbearer.expected.issuer", "https://idp.test",
                        "listener.name.sasl_ssl.sasl.oauthbearer.sub.claim.name", "client_id",
                        "sasl.oauthbearer.clock.skew.seconds", "5")
                .security()
                .forListener("SASL_SSL");
        OAuthBearerSettings oauth = listener.sasl().oauthBearer();
        assertThat(oauth.jwksUrl()).hasToString("https://idp.test/jwks");
        assertThat(oauth.jwksRefreshMs()).isEqualTo(3_600_000);
        assertThat(oauth.token().expectedAudiences()).containsExactlyInAnyOrder("varve", "kafka");
        assertThat(oauth.token().expectedIssuer()).isEqualTo("https://idp.test");
        assertThat(oauth.token().subClaimName()).isEqualTo("client_id");
        assertThat(oauth.token().clockSkewSeconds()).isEqualTo(5);
    }

    @Test
    void oauthBearerWithoutTheValidatorHandlerOrAJwksUrlIsRefused() {
        refused(
                "listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class is not set",
                "listeners",
                "SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms",
                "OAUTHBEARER",
                "sasl.oauthbearer.jwks.endpoint.url",
                "https://idp.test/jwks");
        refused(
                "sasl.oauthbearer.jwks.endpoint.url is not set",
                "listeners",
                "SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms",
                "OAUTHBEARER",
                "listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class",
                VALIDATOR);
        refused(
                "is not a URL Varve reads a JWK set from",
                "listeners",
                "SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms",
                "OAUTHBEARER",
                "listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class",
                VALIDATOR,
                "sasl.oauthbearer.jwks.endpoint.url",
                "ftp://idp.test/jwks");
        refused(
                "sasl.oauthbearer.expected.audience is set, but no listener it applies to uses SASL",
                "sasl.oauthbearer.expected.audience",
                "varve");
    }
}
