package io.varve.http.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class JvmCollectorsTest {
    @Test
    void nativeMemoryIsCollectedOnlyWhenTheJvmTracksIt() {
        assertThat(JvmCollectors.tracksNativeMemory(List.of("-Xmx1g"))).isFalse();
        assertThat(JvmCollectors.tracksNativeMemory(List.of("-XX:NativeMemoryTracking=off")))
                .isFalse();
        assertThat(JvmCollectors.tracksNativeMemory(List.of("-Xmx1g", "-XX:NativeMemoryTracking=summary")))
                .isTrue();
    }
}
