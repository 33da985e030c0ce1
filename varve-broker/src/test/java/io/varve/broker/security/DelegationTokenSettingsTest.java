package io.varve.broker.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.DelegationTokenRecord;
import io.varve.metadata.record.RemoveDelegationTokenRecord;
import io.varve.security.Principal;
import io.varve.security.sasl.DelegationTokenCredential;
import io.varve.security.sasl.DelegationTokenCredentials;
import io.varve.security.sasl.ScramMechanism;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class DelegationTokenSettingsTest {

    @Test
    void tokensAreOffWithoutTheSecretKeyAndTheLifetimesAreKafkasKeys() {
        assertThat(DelegationTokenSettings.from(Map.of()).enabled()).isFalse();
        assertThat(DelegationTokenSettings.from(Map.of()).credentials(() -> MetadataImage.EMPTY, () -> 0))
                .isNull();
        DelegationTokenSettings on = DelegationTokenSettings.from(Map.of(
                "delegation.token.master.key", "old-name",
                "delegation.token.max.lifetime.ms", "1000",
                "delegation.token.expiry.time.ms", "500"));
        assertThat(on.enabled()).isTrue();
        assertThat(on.lifetimes().maxLifetimeMs()).isEqualTo(1000);
        assertThat(on.lifetimes().expiryTimeMs()).isEqualTo(500);
        assertThatThrownBy(() -> DelegationTokenSettings.from(Map.of("delegation.token.expiry.time.ms", "0")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("delegation.token.expiry.time.ms");
    }

    @Test
    void aTokenAuthenticatesItsOwnerUntilItExpiresOrIsRemovedAndItsCredentialIsDerivedOnce() {
        DelegationTokenSettings settings = DelegationTokenSettings.from(Map.of("delegation.token.secret.key", "k"));
        DelegationTokenRecord token =
                new DelegationTokenRecord("t1", "User:alice", "User:alice", List.of(), 0, 100, 50);
        MetadataDelta delta = new MetadataDelta(MetadataImage.EMPTY);
        delta.replay(token);
        AtomicReference<MetadataImage> image = new AtomicReference<>(delta.apply(0));
        AtomicLong now = new AtomicLong(10);
        DelegationTokenCredentials credentials = settings.credentials(image::get, now::get);

        DelegationTokenCredential first =
                credentials.find("t1", ScramMechanism.SCRAM_SHA_512).orElseThrow();
        assertThat(first.owner()).isEqualTo(Principal.user("alice"));
        assertThat(first.expiryTimestampMs()).isEqualTo(50);
        assertThat(credentials
                        .find("t1", ScramMechanism.SCRAM_SHA_512)
                        .orElseThrow()
                        .credential())
                .isEqualTo(first.credential());
        assertThat(credentials.find("nope", ScramMechanism.SCRAM_SHA_512)).isEmpty();

        now.set(51);
        assertThat(credentials.find("t1", ScramMechanism.SCRAM_SHA_512)).isEmpty();
        now.set(10);
        MetadataDelta removal = new MetadataDelta(image.get());
        removal.replay(new RemoveDelegationTokenRecord("t1"));
        image.set(removal.apply(1));
        assertThat(credentials.find("t1", ScramMechanism.SCRAM_SHA_512)).isEmpty();
    }
}
