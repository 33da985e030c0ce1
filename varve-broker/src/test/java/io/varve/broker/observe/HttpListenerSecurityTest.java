package io.varve.broker.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.broker.config.BrokerConfig;
import io.varve.http.HttpSecurity;
import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.UserScramCredentialRecord;
import io.varve.security.sasl.ScramCredential;
import io.varve.security.sasl.ScramMechanism;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HttpListenerSecurityTest {
    private static final String AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";

    @TempDir
    Path dir;

    private BrokerConfig config(Map<String, String> extra) {
        Map<String, String> props = new HashMap<>();
        props.put("log.dirs", dir.toString());
        props.put("listeners", "PLAINTEXT://127.0.0.1:0");
        props.putAll(extra);
        return BrokerConfig.fromMap(props);
    }

    @Test
    void methodsAreBasicMtlsOrBothAndAnythingElseIsRefusedNamingTheKey() {
        assertThat(HttpListenerSecurity.methods(null)).isEmpty();
        assertThat(HttpListenerSecurity.methods(" Basic , mtls"))
                .containsExactlyInAnyOrder(HttpSecurity.Method.BASIC, HttpSecurity.Method.MTLS);
        assertThatThrownBy(() -> HttpListenerSecurity.methods("digest"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value 'digest' for configuration varve.http.authentication: use basic, mtls or"
                        + " both (comma-separated).");
    }

    @Test
    void aBrokerWithAnAuthorizerRefusesAnUnauthenticatedListenerOffLoopbackButNotOnIt() {
        assertThatThrownBy(() -> HttpListenerSecurity.from(
                        config(Map.of(
                                "authorizer.class.name", AUTHORIZER, "varve.http.listeners", "http://0.0.0.0:9644")),
                        () -> MetadataImage.EMPTY))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("varve.http.listeners: http://0.0.0.0:9644 is reachable off the loopback");
        assertThat(HttpListenerSecurity.from(
                                config(Map.of(
                                        "authorizer.class.name",
                                        AUTHORIZER,
                                        "varve.http.listeners",
                                        "http://127.0.0.1:9644")),
                                () -> MetadataImage.EMPTY)
                        .authenticates())
                .isFalse();
        assertThat(HttpListenerSecurity.from(
                                config(Map.of(
                                        "authorizer.class.name", AUTHORIZER,
                                        "varve.http.listeners", "http://0.0.0.0:9644",
                                        "varve.http.authentication", "basic")),
                                () -> MetadataImage.EMPTY)
                        .methods())
                .containsExactly(HttpSecurity.Method.BASIC);
    }

    @Test
    void mtlsWithoutHttpsIsRefused() {
        assertThatThrownBy(() -> HttpListenerSecurity.from(
                        config(Map.of(
                                "varve.http.listeners", "http://127.0.0.1:9644", "varve.http.authentication", "mtls")),
                        () -> MetadataImage.EMPTY))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("varve.http.authentication=mtls needs TLS");
    }

    @Test
    void basicChecksScramCredentialsFirstThenPlainUsers() {
        byte[] salt = "0123456789abcdef".getBytes();
        ScramCredential alice = ScramMechanism.SCRAM_SHA_256.credential("alice-secret", salt, 4096);
        MetadataDelta delta = new MetadataDelta(MetadataImage.EMPTY);
        delta.replay(new UserScramCredentialRecord(
                "alice",
                ScramMechanism.SCRAM_SHA_256.typeId(),
                alice.salt(),
                alice.storedKey(),
                alice.serverKey(),
                alice.iterations()));
        MetadataImage image = delta.apply(1);
        HttpSecurity.BasicVerifier basic =
                HttpListenerSecurity.basic(() -> image, Map.of("carol", "carol-secret", "alice", "plain-alice"));
        assertThat(basic.verify("alice", "alice-secret")).isEqualTo(Optional.of("User:alice"));
        assertThat(basic.verify("alice", "plain-alice"))
                .as("a SCRAM user's PLAIN password is not a second way in")
                .isEmpty();
        assertThat(basic.verify("carol", "carol-secret")).isEqualTo(Optional.of("User:carol"));
        assertThat(basic.verify("carol", "wrong")).isEmpty();
        assertThat(basic.verify("nobody", "")).isEmpty();
    }
}
