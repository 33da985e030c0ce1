package io.varve.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProducerIdManagerTest {

    @Test
    void idsComeFromConsecutiveBlocksAndNeverRepeat() {
        AtomicLong nextBlock = new AtomicLong(5000);
        List<Integer> requestedSizes = new ArrayList<>();
        ProducerIdManager ids = new ProducerIdManager(
                size -> {
                    requestedSizes.add(size);
                    return CompletableFuture.completedFuture(nextBlock.getAndAdd(size));
                },
                3);
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 10; i++) {
            assertThat(seen.add(ids.nextProducerId().join())).isTrue();
        }
        assertThat(seen)
                .containsExactlyInAnyOrder(5000L, 5001L, 5002L, 5003L, 5004L, 5005L, 5006L, 5007L, 5008L, 5009L);
        assertThat(requestedSizes).containsExactly(3, 3, 3, 3);
    }

    @Test
    void callersWaitingForAPendingBlockShareOneAllocation() {
        CompletableFuture<Long> block = new CompletableFuture<>();
        List<CompletableFuture<Long>> allocations = new ArrayList<>();
        ProducerIdManager ids = new ProducerIdManager(
                size -> {
                    allocations.add(block);
                    return block;
                },
                10);
        CompletableFuture<Long> a = ids.nextProducerId();
        CompletableFuture<Long> b = ids.nextProducerId();
        assertThat(a).isNotDone();
        block.complete(100L);
        assertThat(List.of(a.join(), b.join())).containsExactlyInAnyOrder(100L, 101L);
        assertThat(allocations).hasSize(1);
    }

    @Test
    void aFailedAllocationFailsTheCallersAndTheNextCallRetries() {
        List<CompletableFuture<Long>> results = new ArrayList<>(List.of(
                CompletableFuture.failedFuture(new IllegalStateException("controller unavailable")),
                CompletableFuture.completedFuture(7L)));
        ProducerIdManager ids = new ProducerIdManager(size -> results.remove(0), 2);
        assertThatThrownBy(() -> ids.nextProducerId().join()).hasRootCauseMessage("controller unavailable");
        assertThat(ids.nextProducerId().join()).isEqualTo(7L);
    }
}
