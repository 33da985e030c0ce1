package io.varve.metadata.controller.replication;

import io.varve.metadata.controller.ControllerResult;
import io.varve.metadata.controller.replication.PartitionChangeBuilder.Election;
import io.varve.metadata.controller.replication.ReplicationControl.ElectionType;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.PartitionImage;
import io.varve.metadata.image.TopicImage;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.PartitionChangeRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.IntPredicate;
import org.apache.kafka.common.protocol.Errors;

/**
 * Elections asked for: ElectLeaders (PREFERRED and UNCLEAN) and the automatic preferred-leader rebalance
 * ({@code auto.leader.rebalance.enable}). Pure: image in, records and results out.
 */
public final class ElectionControl {

    /** Most preferred elections one rebalance writes: one metadata batch; the next check does the rest. */
    public static final int MAX_REBALANCE_ELECTIONS = 1_000;

    private final ReplicationControl replication;

    public ElectionControl(ReplicationControl replication) {
        this.replication = replication;
    }

    /**
     * ElectLeaders. With {@code partitions} null every partition is considered and only those that
     * needed an election are reported, as Kafka does; otherwise one result per listed partition, in
     * order: ELECTION_NOT_NEEDED if the partition already has the leader the election would give it,
     * PREFERRED_LEADER_NOT_AVAILABLE if the preferred replica is not an active ISR member,
     * ELIGIBLE_LEADERS_NOT_AVAILABLE if an unclean election finds no active replica.
     */
    public ControllerResult<List<PartitionResultError>> electLeaders(
            MetadataImage image, ElectionType type, Map<String, List<Integer>> partitions) {
        List<MetadataRecord> records = new ArrayList<>();
        List<PartitionResultError> results = new ArrayList<>();
        if (partitions == null) {
            new TreeMap<>(image.topics().topicsByName()).forEach((name, topic) -> new TreeMap<>(topic.partitions())
                    .keySet()
                    .forEach(partitionId -> {
                        PartitionResultError result = elect(image, type, name, partitionId, records);
                        if (result.error() != Errors.ELECTION_NOT_NEEDED) {
                            results.add(result);
                        }
                    }));
        } else {
            partitions.forEach((name, ids) -> ids.forEach(id -> results.add(elect(image, type, name, id, records))));
        }
        return ControllerResult.of(records, results);
    }

    private PartitionResultError elect(
            MetadataImage image, ElectionType type, String topicName, int partitionId, List<MetadataRecord> records) {
        TopicImage topic = image.topics().getTopic(topicName);
        PartitionImage partition = topic == null ? null : topic.partition(partitionId);
        if (partition == null) {
            return new PartitionResultError(
                    topicName,
                    partitionId,
                    Errors.UNKNOWN_TOPIC_OR_PARTITION,
                    "The partition " + topicName + "-" + partitionId + " does not exist.");
        }
        IntPredicate active = image.cluster()::isActive;
        if (type == ElectionType.PREFERRED) {
            int preferred = partition.preferredLeader();
            if (partition.leader() == preferred) {
                return new PartitionResultError(
                        topicName,
                        partitionId,
                        Errors.ELECTION_NOT_NEEDED,
                        "Leader election not needed for topic partition.");
            }
            if (!partition.isInIsr(preferred) || !active.test(preferred)) {
                return new PartitionResultError(
                        topicName,
                        partitionId,
                        Errors.PREFERRED_LEADER_NOT_AVAILABLE,
                        "Failed to elect leader for partition " + topicName + "-" + partitionId
                                + " under strategy PREFERRED: the preferred replica " + preferred
                                + " is not an active member of the ISR.");
            }
        } else if (partition.leader() != PartitionChangeRecord.NO_LEADER) {
            return new PartitionResultError(
                    topicName,
                    partitionId,
                    Errors.ELECTION_NOT_NEEDED,
                    "Leader election not needed for topic partition.");
        }
        Optional<PartitionChangeRecord> change = replication
                .builder(image, topic, partitionId, active)
                .withElection(type == ElectionType.PREFERRED ? Election.PREFERRED : Election.UNCLEAN)
                .build();
        if (change.isEmpty() || !change.get().changesLeader()) {
            return new PartitionResultError(
                    topicName,
                    partitionId,
                    Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE,
                    "Failed to elect leader for partition " + topicName + "-" + partitionId
                            + " under strategy UNCLEAN: no replica is active.");
        }
        records.add(change.get());
        return PartitionResultError.ok(topicName, partitionId);
    }

    /**
     * The automatic rebalance: for each broker whose share of partitions it prefers but does not lead
     * is above {@code imbalancePercentage} percent, the preferred elections that can happen now (the
     * preferred replica is an active ISR member), at most {@link #MAX_REBALANCE_ELECTIONS}.
     */
    public List<MetadataRecord> rebalance(MetadataImage image, int imbalancePercentage) {
        Map<Integer, int[]> preferredAndNotLed = new HashMap<>(); // broker -> {preferred count, not led count}
        for (TopicImage topic : image.topics().topicsById().values()) {
            for (PartitionImage partition : topic.partitions().values()) {
                int[] counts = preferredAndNotLed.computeIfAbsent(partition.preferredLeader(), b -> new int[2]);
                counts[0]++;
                if (partition.leader() != partition.preferredLeader()) {
                    counts[1]++;
                }
            }
        }
        IntPredicate imbalanced = broker -> {
            int[] counts = preferredAndNotLed.get(broker);
            return counts != null && counts[1] * 100L > (long) imbalancePercentage * counts[0];
        };
        IntPredicate active = image.cluster()::isActive;
        List<MetadataRecord> records = ReplicationControl.changes(image, (topic, partitionId) -> {
            PartitionImage partition = topic.partition(partitionId);
            int preferred = partition.preferredLeader();
            if (partition.leader() == preferred
                    || !imbalanced.test(preferred)
                    || !partition.isInIsr(preferred)
                    || !active.test(preferred)) {
                return Optional.empty();
            }
            return replication
                    .builder(image, topic, partitionId, active)
                    .withElection(Election.PREFERRED)
                    .build();
        });
        return records.size() > MAX_REBALANCE_ELECTIONS ? records.subList(0, MAX_REBALANCE_ELECTIONS) : records;
    }
}
