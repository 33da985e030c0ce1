package io.varve.broker.replica;

import io.varve.broker.replica.state.PartitionState.IsrChange;
import io.varve.metadata.controller.replication.AlterPartitionReply;
import io.varve.metadata.controller.replication.AlterPartitionRequest;
import io.varve.metadata.controller.replication.AlterPartitionRequest.IsrMember;
import io.varve.metadata.controller.replication.AlterPartitionRequest.PartitionIsr;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a leader's ISR changes to the active controller as AlterPartition and hands the outcome back to the
 * partition. A refused or lost change keeps the partition's change "in flight" for a back-off before it may propose
 * again, so a controller that keeps refusing (a stale partition epoch until the new image arrives, a fenced follower)
 * is not asked in a loop. Each partition has at most one change in flight, so what waits here is bounded by the
 * partitions this broker leads.
 */
final class IsrChangeSender {
    private static final Logger log = LoggerFactory.getLogger(IsrChangeSender.class);

    private final int brokerId;
    private final ScheduledExecutorService timer;
    private final long retryBackoffMs;
    private volatile Function<AlterPartitionRequest, CompletableFuture<AlterPartitionReply>> controller;
    private volatile LongSupplier brokerEpoch = () -> -1L;
    /** Told of every ISR change the controller made: true when the ISR shrank, false when it grew (metrics). */
    private volatile java.util.function.Consumer<Boolean> committedChanges = shrank -> {};

    IsrChangeSender(int brokerId, ScheduledExecutorService timer, long retryBackoffMs) {
        this.brokerId = brokerId;
        this.timer = timer;
        this.retryBackoffMs = retryBackoffMs;
    }

    void connect(
            Function<AlterPartitionRequest, CompletableFuture<AlterPartitionReply>> controller,
            LongSupplier brokerEpoch) {
        this.brokerEpoch = brokerEpoch;
        this.controller = controller;
    }

    void onCommittedChange(java.util.function.Consumer<Boolean> observer) {
        this.committedChanges = observer;
    }

    void send(Partition partition, IsrChange change) {
        Function<AlterPartitionRequest, CompletableFuture<AlterPartitionReply>> to = controller;
        if (to == null) {
            retryLater(partition, "the controller is not reachable yet");
            return;
        }
        List<IsrMember> members =
                change.newIsr().stream().sorted().map(IsrMember::of).toList();
        // Compared with the ISR the change starts from: the new image may reach the partition before the answer does.
        int before = partition.isr().size();
        AlterPartitionRequest request = new AlterPartitionRequest(
                brokerId,
                brokerEpoch.getAsLong(),
                List.of(new PartitionIsr(
                        partition.topicId(),
                        partition.topicPartition().partition(),
                        change.leaderEpoch(),
                        members,
                        change.partitionEpoch())));
        to.apply(request).whenComplete((reply, failure) -> {
            if (failure != null) {
                retryLater(partition, failure.toString());
                return;
            }
            if (reply.error() != Errors.NONE || reply.partitions().isEmpty()) {
                retryLater(partition, "the controller answered " + reply.error());
                return;
            }
            AlterPartitionReply.PartitionResult result = reply.partitions().get(0);
            if (result.error() != Errors.NONE) {
                // INVALID_UPDATE_VERSION / FENCED_LEADER_EPOCH: a newer image is on its way and is adopted then
                retryLater(partition, "the controller answered " + result.error());
                return;
            }
            partition.isrChangeCommitted(result.leaderEpoch(), result.partitionEpoch(), Set.copyOf(result.isr()));
            if (result.isr().size() != before) {
                committedChanges.accept(result.isr().size() < before);
            }
        });
    }

    private void retryLater(Partition partition, String why) {
        log.info(
                "The ISR change of {} was not made ({}); proposing again after {} ms",
                partition.topicPartition(),
                why,
                retryBackoffMs);
        timer.schedule(partition::isrChangeFailed, retryBackoffMs, TimeUnit.MILLISECONDS);
    }
}
