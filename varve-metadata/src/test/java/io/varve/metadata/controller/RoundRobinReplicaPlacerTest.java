package io.varve.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoundRobinReplicaPlacerTest {

    private final RoundRobinReplicaPlacer placer = new RoundRobinReplicaPlacer();

    @Test
    void leadersRotateFromTheStartIndexAndReplicasAreDistinct() {
        List<List<Integer>> placement = placer.place(List.of(10, 20, 30, 40), 6, 3, 1);

        assertThat(placement).extracting(replicas -> replicas.get(0)).containsExactly(20, 30, 40, 10, 20, 30);
        assertThat(placement)
                .allSatisfy(replicas -> assertThat(new HashSet<>(replicas)).hasSize(3));
    }

    @Test
    void moreReplicasThanBrokersIsRefused() {
        assertThatThrownBy(() -> placer.place(List.of(1), 1, 2, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
