package io.varve.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.metadata.image.MetadataImage;
import org.junit.jupiter.api.Test;

class ApiVersionsHandlerTest {
    private final ApiVersionsHandler broker =
            new ApiVersionsHandler(new ApiRegistry(), () -> MetadataImage.EMPTY, "cluster-a", 3);

    @Test
    void aRequestNamingThisClusterAndNodeOrNoClusterIsForThisBroker() {
        assertThat(broker.meantForAnother("cluster-a", 3)).isFalse();
        assertThat(broker.meantForAnother(null, -1)).isFalse();
        assertThat(broker.meantForAnother(null, 7))
                .as("no cluster id: nothing is checked")
                .isFalse();
    }

    @Test
    void aRequestNamingAnotherClusterOrAnotherNodeOfThisOneIsMeantForAnother() {
        assertThat(broker.meantForAnother("cluster-b", 3)).isTrue();
        assertThat(broker.meantForAnother("cluster-a", 4)).isTrue();
        assertThat(broker.meantForAnother("cluster-a", -1))
                .as("a cluster id without its node id")
                .isTrue();
    }
}
