package io.varve.broker.txn;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.txn.TxnVerificationBatcher.NodeQueue;
import io.varve.broker.txn.TxnVerificationBatcher.Question;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class TxnVerificationBatcherTest {
    private static Question q(String id, long pid, int epoch, boolean add, int partition) {
        return new Question(id, pid, (short) epoch, new TopicPartition("t", partition), add, new CompletableFuture<>());
    }

    @Test
    void whatQueuedWhileARequestWasInFlightLeavesAsOneRequestAndAnIdAppearsInItOnce() {
        NodeQueue queue = new NodeQueue();
        Question a0 = q("a", 1, 0, false, 0);
        Question a0other = q("a", 1, 0, false, 1);
        Question aNewEpoch = q("a", 1, 1, false, 0);
        Question b = q("b", 2, 0, true, 0);
        queue.waiting.add(a0);
        queue.waiting.add(aNewEpoch);
        queue.waiting.add(b);
        queue.waiting.add(a0other);

        assertThat(queue.takeBatch()).containsExactly(a0, b, a0other);
        assertThat(queue.inFlight).isTrue();
        // the same transactional id with another epoch waits for the next request
        assertThat(queue.takeBatch()).containsExactly(aNewEpoch);
        assertThat(queue.takeBatch()).isEmpty();
        assertThat(queue.inFlight).isFalse();
    }
}
