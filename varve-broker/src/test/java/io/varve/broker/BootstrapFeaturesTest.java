package io.varve.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.broker.config.ConfigException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BootstrapFeaturesTest {
    @TempDir
    Path dir;

    @Test
    void aNewClusterStartsWithKafkaDefaultsAndFormatFeatureOverridesOne() throws Exception {
        assertThat(BootstrapFeatures.read(dir)).isEqualTo(BootstrapFeatures.defaults());
        assertThat(BootstrapFeatures.defaults())
                .containsEntry("group.version", (short) 1)
                .containsEntry("eligible.leader.replicas.version", (short) 1)
                .containsEntry("streams.version", (short) 1)
                .containsKey("transaction.version");

        BootstrapFeatures.write(dir, BootstrapFeatures.parse(List.of("transaction.version=1")));

        Map<String, Short> levels = BootstrapFeatures.read(dir);
        assertThat(levels).containsEntry("transaction.version", (short) 1);
        assertThat(levels.get("metadata.version"))
                .isEqualTo(BootstrapFeatures.defaults().get("metadata.version"));
    }

    @Test
    void anUnknownFeatureOrUnsupportedLevelIsRefusedWithOneSentence() {
        assertThatThrownBy(() -> BootstrapFeatures.parse(List.of("transaction.version=3")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("--feature transaction.version=3 is not supported: this build supports transaction.version"
                        + " 0 to 2.");
        assertThatThrownBy(() -> BootstrapFeatures.parse(List.of("no.such.version=1")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("which this build does not know");
        assertThatThrownBy(() -> BootstrapFeatures.parse(List.of("transaction.version")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("is not NAME=LEVEL");
        assertThatThrownBy(() -> BootstrapFeatures.parse(List.of("metadata.version=0")))
                .isInstanceOf(ConfigException.class);
    }
}
