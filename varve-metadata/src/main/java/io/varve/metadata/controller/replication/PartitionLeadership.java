package io.varve.metadata.controller.replication;

import io.varve.metadata.image.PartitionImage;
import io.varve.metadata.record.PartitionChangeRecord;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.IntPredicate;
import org.apache.kafka.common.Uuid;

/**
 * The changes of one partition's leader and ISR, as records. Elections are clean only: a leader
 * comes from the ISR, the first replica (in assignment order, so the preferred leader wins when it
 * can) that is acceptable.
 */
final class PartitionLeadership {

    private PartitionLeadership() {}

    /**
     * Takes {@code leaving} out of the partition's ISR and leadership. The last ISR member stays in
     * the ISR (so the partition knows whose data is complete) and the partition goes offline
     * (leader -1) if no other acceptable ISR member can lead, as Kafka does without ELR.
     *
     * @param acceptable which brokers may lead; must be false for {@code leaving}
     */
    static Optional<PartitionChangeRecord> withoutBroker(
            Uuid topicId, int partitionId, PartitionImage partition, int leaving, IntPredicate acceptable) {
        if (!partition.isInIsr(leaving) && partition.leader() != leaving) {
            return Optional.empty();
        }
        int[] isr = partition.isr();
        int[] shrunk = Arrays.stream(isr).filter(member -> member != leaving).toArray();
        int[] nextIsr = shrunk.length == 0 ? isr : shrunk;
        int nextLeader = partition.leader();
        if (nextLeader == leaving || nextLeader == PartitionChangeRecord.NO_LEADER) {
            nextLeader = elect(partition.replicas(), nextIsr, acceptable);
        }
        return change(topicId, partitionId, partition, nextIsr, nextLeader);
    }

    /** A leader for an offline partition, if one of its ISR members is now acceptable. */
    static Optional<PartitionChangeRecord> electIfOffline(
            Uuid topicId, int partitionId, PartitionImage partition, IntPredicate acceptable) {
        if (partition.leader() != PartitionChangeRecord.NO_LEADER) {
            return Optional.empty();
        }
        int leader = elect(partition.replicas(), partition.isr(), acceptable);
        return change(topicId, partitionId, partition, partition.isr(), leader);
    }

    /** The first replica in the ISR that is acceptable, or {@link PartitionChangeRecord#NO_LEADER}. */
    static int elect(int[] replicas, int[] isr, IntPredicate acceptable) {
        for (int replica : replicas) {
            if (contains(isr, replica) && acceptable.test(replica)) {
                return replica;
            }
        }
        return PartitionChangeRecord.NO_LEADER;
    }

    private static Optional<PartitionChangeRecord> change(
            Uuid topicId, int partitionId, PartitionImage partition, int[] nextIsr, int nextLeader) {
        boolean isrChanges = !Arrays.equals(nextIsr, partition.isr());
        boolean leaderChanges = nextLeader != partition.leader();
        if (!isrChanges && !leaderChanges) {
            return Optional.empty();
        }
        return Optional.of(new PartitionChangeRecord(
                topicId,
                partitionId,
                isrChanges ? nextIsr : null,
                leaderChanges ? nextLeader : PartitionChangeRecord.NO_LEADER_CHANGE,
                null));
    }

    static boolean contains(int[] brokers, int brokerId) {
        for (int broker : brokers) {
            if (broker == brokerId) {
                return true;
            }
        }
        return false;
    }
}
