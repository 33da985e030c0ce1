package io.varve.broker.replica.selector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ReplicaSelectorsTest {
    @Test
    void unsetMeansConsumersReadFromTheLeaderOnly() {
        assertThat(ReplicaSelectors.forClassName(null)).isEmpty();
        assertThat(ReplicaSelectors.forClassName("")).isEmpty();
        assertThat(ReplicaSelectors.forClassName("org.apache.kafka.common.replica.LeaderSelector"))
                .isEmpty();
    }

    @Test
    void kafkasRackAwareSelectorNameTurnsOnVarvesRackAwareSelector() {
        assertThat(ReplicaSelectors.forClassName("org.apache.kafka.common.replica.RackAwareReplicaSelector"))
                .get()
                .isInstanceOf(RackAwareReplicaSelector.class);
        assertThat(ReplicaSelectors.forClassName(RackAwareReplicaSelector.class.getName()))
                .get()
                .isInstanceOf(RackAwareReplicaSelector.class);
    }

    @Test
    void anUnknownClassIsRefusedNamingTheKey() {
        assertThatThrownBy(() -> ReplicaSelectors.forClassName("com.example.MySelector"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("replica.selector.class com.example.MySelector is not available");
    }
}
