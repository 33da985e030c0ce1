package io.varve.metadata.controller.replication;

import io.varve.metadata.controller.ControllerResult;
import io.varve.metadata.controller.replication.ReplicationPolicy.TopicRules;
import io.varve.metadata.image.ClusterImage;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.PartitionImage;
import io.varve.metadata.image.TopicImage;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.PartitionChangeRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.apache.kafka.common.protocol.Errors;

/**
 * Partition reassignments as Kafka's KRaft controller runs them. Pure: image in, records and results out.
 *
 * <pre>
 *   state                          event                                      next state
 *   replicas O, no reassignment    target T adds replicas                     replicas T + (O - T), adding T - O,
 *                                                                             removing O - T, ISR and leader kept
 *   replicas O, no reassignment    target T adds none                         replicas T, ISR minus the removed
 *                                                                             (completed at once)
 *   reassigning to T               AlterPartition puts every adding replica  replicas T, ISR minus the removing,
 *                                  in the ISR                                 leader elected if it was removed,
 *                                                                             leader epoch +1 (completed)
 *   reassigning from O             new target T'                              as a new reassignment from O
 *   reassigning from O             cancel                                     replicas O, ISR within O (refused
 *                                                                             if that leaves no ISR member)
 * </pre>
 *
 * New replicas therefore join (the leader's AlterPartition adds them to the ISR) before old ones leave, and
 * the target's first replica leads where it can: the target goes first in the replicas.
 */
public final class ReassignmentControl {

    private final ReplicationControl replication;

    public ReassignmentControl(ReplicationControl replication) {
        this.replication = replication;
    }

    /** AlterPartitionReassignments allowing replication factor changes. */
    public ControllerResult<List<PartitionResultError>> alter(
            MetadataImage image, List<PartitionReassignment> reassignments) {
        return alter(image, reassignments, true);
    }

    /**
     * AlterPartitionReassignments: one result per requested partition, in order. Without {@code
     * allowReplicationFactorChange} (KIP-860) a target of another size than the original replicas is
     * INVALID_REPLICATION_FACTOR.
     */
    public ControllerResult<List<PartitionResultError>> alter(
            MetadataImage image, List<PartitionReassignment> reassignments, boolean allowReplicationFactorChange) {
        List<MetadataRecord> records = new ArrayList<>();
        List<PartitionResultError> results = new ArrayList<>(reassignments.size());
        Set<String> seen = new HashSet<>();
        for (PartitionReassignment request : reassignments) {
            String topicName = request.topic();
            int partitionId = request.partitionId();
            TopicImage topic = image.topics().getTopic(topicName);
            PartitionImage partition = topic == null ? null : topic.partition(partitionId);
            if (partition == null) {
                results.add(new PartitionResultError(
                        topicName,
                        partitionId,
                        Errors.UNKNOWN_TOPIC_OR_PARTITION,
                        "Unable to find partition " + topicName + "-" + partitionId + "."));
                continue;
            }
            if (!seen.add(topicName + "-" + partitionId)) {
                results.add(new PartitionResultError(
                        topicName, partitionId, Errors.INVALID_REQUEST, "The partition is listed more than once."));
                continue;
            }
            try {
                Optional<PartitionChangeRecord> change = request.cancels()
                        ? cancel(image, topic, partitionId, partition)
                        : start(
                                image,
                                topic,
                                partitionId,
                                partition,
                                request.targetReplicas(),
                                allowReplicationFactorChange);
                change.ifPresent(records::add);
                results.add(PartitionResultError.ok(topicName, partitionId));
            } catch (ReassignmentException e) {
                results.add(new PartitionResultError(topicName, partitionId, e.error, e.getMessage()));
            }
        }
        return ControllerResult.of(records, results);
    }

    private Optional<PartitionChangeRecord> start(
            MetadataImage image,
            TopicImage topic,
            int partitionId,
            PartitionImage partition,
            List<Integer> target,
            boolean allowReplicationFactorChange)
            throws ReassignmentException {
        validateTarget(image.cluster(), target);
        int[] original = originalReplicas(partition);
        if (!allowReplicationFactorChange && target.size() != original.length) {
            throw new ReassignmentException(
                    Errors.INVALID_REPLICATION_FACTOR,
                    "The replication factor is changed from " + original.length + " to " + target.size()
                            + " but allowReplicationFactorChange is false.");
        }
        int[] targetIds = target.stream().mapToInt(Integer::intValue).toArray();
        int[] adding =
                IntStream.of(targetIds).filter(r -> !contains(original, r)).toArray();
        int[] removing =
                IntStream.of(original).filter(r -> !contains(targetIds, r)).toArray();
        int[] replicas = IntStream.concat(IntStream.of(targetIds), IntStream.of(removing))
                .toArray();
        PartitionChangeBuilder builder = replication
                .builder(image, topic, partitionId, image.cluster()::isActive)
                .withTargetReplicas(replicas, adding, removing);
        int[] isr =
                IntStream.of(partition.isr()).filter(r -> contains(replicas, r)).toArray();
        // Without replicas to add this completes at once, unless no target replica is in sync: then it completes
        // once one joins the ISR.
        completeIfCaughtUp(replicas, adding, removing, isr, builder);
        return builder.build();
    }

    private Optional<PartitionChangeRecord> cancel(
            MetadataImage image, TopicImage topic, int partitionId, PartitionImage partition)
            throws ReassignmentException {
        if (!partition.isReassigning()) {
            throw new ReassignmentException(
                    Errors.NO_REASSIGNMENT_IN_PROGRESS,
                    "No ongoing reassignment for partition " + topic.name() + "-" + partitionId + ".");
        }
        int[] original = originalReplicas(partition);
        int[] isr =
                IntStream.of(partition.isr()).filter(r -> contains(original, r)).toArray();
        PartitionChangeBuilder builder = replication
                .builder(image, topic, partitionId, image.cluster()::isActive)
                .withTargetReplicas(original, new int[0], new int[0]);
        if (isr.length == 0) {
            TopicRules rules = replication.policy().rulesFor(image, topic.name());
            int live = IntStream.of(original)
                    .filter(image.cluster()::isActive)
                    .findFirst()
                    .orElse(-1);
            if (!rules.uncleanEnabled() || live < 0) {
                throw new ReassignmentException(
                        Errors.INVALID_REPLICA_ASSIGNMENT,
                        "Unable to revert partition assignment for " + topic.name() + "-" + partitionId
                                + " because it would leave no in-sync replica.");
            }
            isr = new int[] {live}; // unclean, as the topic allows: the old replicas may lack the newest records
        }
        return builder.withTargetIsr(isr).withLeaderEpochBump().build();
    }

    /**
     * Completes the partition's reassignment in {@code builder} if {@code isr} (the ISR about to be
     * written) holds every adding replica and would keep a member once the removing ones leave.
     */
    static void completeIfCaughtUp(PartitionImage partition, int[] isr, PartitionChangeBuilder builder) {
        if (partition.isReassigning()) {
            completeIfCaughtUp(
                    partition.replicas(), partition.addingReplicas(), partition.removingReplicas(), isr, builder);
        }
    }

    private static boolean completeIfCaughtUp(
            int[] replicas, int[] adding, int[] removing, int[] isr, PartitionChangeBuilder builder) {
        if (IntStream.of(adding).anyMatch(r -> !contains(isr, r))) {
            return false;
        }
        int[] finalIsr = IntStream.of(isr).filter(r -> !contains(removing, r)).toArray();
        if (finalIsr.length == 0) {
            return false;
        }
        int[] finalReplicas =
                IntStream.of(replicas).filter(r -> !contains(removing, r)).toArray();
        builder.withTargetReplicas(finalReplicas, new int[0], new int[0])
                .withTargetIsr(finalIsr)
                .withLeaderEpochBump();
        return true;
    }

    /** ListPartitionReassignments: the reassignments in progress, all of them or of the partitions asked for. */
    public List<OngoingReassignment> list(MetadataImage image, Map<String, List<Integer>> partitions) {
        List<OngoingReassignment> ongoing = new ArrayList<>();
        new TreeMap<>(image.topics().topicsByName()).forEach((name, topic) -> {
            if (partitions != null && !partitions.containsKey(name)) {
                return;
            }
            new TreeMap<>(topic.partitions()).forEach((partitionId, partition) -> {
                boolean asked = partitions == null || partitions.get(name).contains(partitionId);
                if (asked && partition.isReassigning()) {
                    ongoing.add(new OngoingReassignment(
                            name,
                            partitionId,
                            IntStream.of(partition.replicas()).boxed().toList(),
                            IntStream.of(partition.addingReplicas()).boxed().toList(),
                            IntStream.of(partition.removingReplicas()).boxed().toList()));
                }
            });
        });
        return ongoing;
    }

    /** True if any partition of the topic is being reassigned (CreatePartitions then refuses). */
    public static boolean isReassigning(TopicImage topic) {
        return topic.partitions().values().stream().anyMatch(PartitionImage::isReassigning);
    }

    private void validateTarget(ClusterImage cluster, List<Integer> target) throws ReassignmentException {
        if (target.isEmpty()) {
            throw new ReassignmentException(
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    "The manual partition assignment includes an empty replica list.");
        }
        Set<Integer> distinct = new HashSet<>();
        for (Integer broker : target) {
            if (broker == null || !distinct.add(broker)) {
                throw new ReassignmentException(
                        Errors.INVALID_REPLICA_ASSIGNMENT,
                        "The manual partition assignment includes the broker " + broker + " more than once.");
            }
            if (cluster.broker(broker) == null) {
                throw new ReassignmentException(
                        Errors.INVALID_REPLICA_ASSIGNMENT,
                        "The manual partition assignment includes broker " + broker
                                + ", but no such broker is registered.");
            }
        }
    }

    /** The replicas before any reassignment in progress. */
    private static int[] originalReplicas(PartitionImage partition) {
        int[] adding = partition.addingReplicas();
        return IntStream.of(partition.replicas())
                .filter(r -> !contains(adding, r))
                .toArray();
    }

    private static boolean contains(int[] brokers, int broker) {
        return PartitionChangeBuilder.contains(brokers, broker);
    }

    private static final class ReassignmentException extends Exception {
        private static final long serialVersionUID = 1L;
        private final transient Errors error;

        ReassignmentException(Errors error, String message) {
            super(message, null, false, false);
            this.error = error;
        }
    }
}
