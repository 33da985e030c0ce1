package io.varve.metadata.controller.replication;

import io.varve.metadata.controller.ControllerResult;
import io.varve.metadata.controller.replication.AlterPartitionReply.PartitionResult;
import io.varve.metadata.controller.replication.AlterPartitionRequest.IsrMember;
import io.varve.metadata.controller.replication.AlterPartitionRequest.PartitionIsr;
import io.varve.metadata.image.BrokerRegistration;
import io.varve.metadata.image.ClusterImage;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.PartitionImage;
import io.varve.metadata.image.TopicImage;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.PartitionChangeRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * Leaders and ISRs across the cluster. Pure: every method reads an image and returns the
 * {@link PartitionChangeRecord}s to write (and a reply); nothing is remembered between calls. Each
 * partition's next state comes from a {@link PartitionChangeBuilder} (elections, ELR upkeep);
 * reassignments and ElectLeaders are {@link ReassignmentControl}'s and {@link ElectionControl}'s.
 *
 * <p>Scans every partition on each broker event: fine for thousands of partitions; an index of
 * partitions by ISR member belongs in the image when clusters grow.
 */
public final class ReplicationControl {

    private final ReplicationPolicy policy;

    public ReplicationControl() {
        this(ReplicationPolicy.DEFAULTS);
    }

    public ReplicationControl(ReplicationPolicy policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    public ReplicationPolicy policy() {
        return policy;
    }

    PartitionChangeBuilder builder(MetadataImage image, TopicImage topic, int partitionId, IntPredicate eligible) {
        return new PartitionChangeBuilder(
                topic.id(), partitionId, topic.partition(partitionId), eligible, policy.rulesFor(image, topic.name()));
    }

    /**
     * The changes that take {@code brokerId} out of every ISR and leadership (it is being fenced, is
     * shutting down, or is unregistered): each partition it leads elects a new leader (see {@link
     * PartitionChangeBuilder}) among the other active brokers, or goes offline.
     */
    public List<MetadataRecord> removeFromIsrsAndLeaderships(MetadataImage image, int brokerId) {
        IntPredicate eligible = id -> id != brokerId && image.cluster().isActive(id);
        return changes(image, (topic, partitionId) -> {
            PartitionImage partition = topic.partition(partitionId);
            if (!partition.isInIsr(brokerId) && partition.leader() != brokerId) {
                return Optional.empty();
            }
            return builder(image, topic, partitionId, eligible)
                    .withoutBroker(brokerId)
                    .build();
        });
    }

    /**
     * The changes that take {@code brokerId} out of every ELR into the last known ELR: it restarted
     * without showing a clean shutdown, so it may have lost records and cannot be elected as one holding
     * every committed record (it may still lead as the last known leader, see {@link PartitionChangeBuilder}).
     */
    public List<MetadataRecord> removeFromElrs(MetadataImage image, int brokerId) {
        return changes(image, (topic, partitionId) -> {
            PartitionImage partition = topic.partition(partitionId);
            if (!partition.isInElr(brokerId)) {
                return Optional.empty();
            }
            int[] lastKnownElr = partition.lastKnownElr();
            if (!PartitionChangeBuilder.contains(lastKnownElr, brokerId)) {
                lastKnownElr = IntStream.concat(Arrays.stream(lastKnownElr), IntStream.of(brokerId))
                        .toArray();
            }
            return Optional.of(new PartitionChangeRecord(
                    topic.id(),
                    partitionId,
                    null,
                    PartitionChangeRecord.NO_LEADER_CHANGE,
                    null,
                    null,
                    null,
                    PartitionChangeBuilder.without(partition.elr(), brokerId),
                    lastKnownElr));
        });
    }

    /**
     * The elections that {@code returning} (now active, being unfenced) makes possible: offline
     * partitions it is a replica of get a leader again if the rules allow one.
     */
    public List<MetadataRecord> electOfflineLeaders(MetadataImage image, int returning) {
        IntPredicate eligible = id -> id == returning || image.cluster().isActive(id);
        return changes(image, (topic, partitionId) -> {
            PartitionImage partition = topic.partition(partitionId);
            return partition.leader() == PartitionChangeRecord.NO_LEADER && partition.hasReplica(returning)
                    ? builder(image, topic, partitionId, eligible).build()
                    : Optional.empty();
        });
    }

    /**
     * Elections for every offline partition that can get a leader now: after
     * {@code unclean.leader.election.enable} was turned on, and periodically.
     */
    public List<MetadataRecord> electOfflineLeaders(MetadataImage image) {
        IntPredicate eligible = image.cluster()::isActive;
        return changes(
                image,
                (topic, partitionId) -> topic.partition(partitionId).leader() == PartitionChangeRecord.NO_LEADER
                        ? builder(image, topic, partitionId, eligible).build()
                        : Optional.empty());
    }

    /**
     * Every partition brought in line with the election rules of this image, after they changed: offline
     * partitions elected where {@code unclean.leader.election.enable} now allows it, ELRs emptied where the ISR
     * now reaches {@code min.insync.replicas}, and all of them emptied when {@code eligible.leader.replicas.version}
     * went down to 0 (KIP-966's downgrade). A partition already in line yields no record.
     */
    public List<MetadataRecord> applyElectionRules(MetadataImage image) {
        IntPredicate eligible = image.cluster()::isActive;
        return changes(image, (topic, partitionId) -> builder(image, topic, partitionId, eligible)
                .build());
    }

    /** Number of partitions the broker leads. */
    public int leaderships(MetadataImage image, int brokerId) {
        int count = 0;
        for (TopicImage topic : image.topics().topicsById().values()) {
            for (PartitionImage partition : topic.partitions().values()) {
                if (partition.leader() == brokerId) {
                    count++;
                }
            }
        }
        return count;
    }

    /** Topics in name order, partitions in id order, so the records are deterministic. */
    static List<MetadataRecord> changes(
            MetadataImage image, BiFunction<TopicImage, Integer, Optional<PartitionChangeRecord>> change) {
        List<MetadataRecord> records = new ArrayList<>();
        new TreeMap<>(image.topics().topicsByName()).values().forEach(topic -> new TreeMap<>(topic.partitions())
                .keySet()
                .forEach(partitionId -> change.apply(topic, partitionId).ifPresent(records::add)));
        return records;
    }

    /**
     * Validates a leader's ISR changes as Kafka's controller does: a stale broker epoch fails the
     * whole request (STALE_BROKER_EPOCH); per partition, a leader epoch other than the current one is
     * FENCED_LEADER_EPOCH, a request from a broker that does not lead is INVALID_REQUEST, a stale
     * partition epoch is INVALID_UPDATE_VERSION (unless the request asks for exactly the current ISR:
     * a retry whose answer was lost succeeds), and members that are fenced, shutting down or of another
     * incarnation are INELIGIBLE_REPLICA. An accepted ISR also updates the ELR, and completes a
     * reassignment once every added replica is in it; if that moves the leadership away from the
     * sender, its result is NEW_LEADER_ELECTED.
     */
    public ControllerResult<AlterPartitionReply> alterPartition(MetadataImage image, AlterPartitionRequest request) {
        BrokerRegistration sender = image.cluster().broker(request.brokerId());
        if (sender == null || sender.epoch() != request.brokerEpoch()) {
            return ControllerResult.withoutRecords(new AlterPartitionReply(Errors.STALE_BROKER_EPOCH, List.of()));
        }
        List<MetadataRecord> records = new ArrayList<>();
        List<PartitionResult> results = new ArrayList<>(request.partitions().size());
        Set<String> seen = new HashSet<>();
        for (PartitionIsr change : request.partitions()) {
            Uuid topicId = change.topicId();
            int partitionId = change.partitionId();
            TopicImage topic = image.topics().getTopic(topicId);
            PartitionImage partition = topic == null ? null : topic.partition(partitionId);
            if (topic == null) {
                results.add(PartitionResult.failure(topicId, partitionId, Errors.UNKNOWN_TOPIC_ID));
            } else if (partition == null) {
                results.add(PartitionResult.failure(topicId, partitionId, Errors.UNKNOWN_TOPIC_OR_PARTITION));
            } else if (!seen.add(topicId + "-" + partitionId)) {
                results.add(PartitionResult.failure(topicId, partitionId, Errors.INVALID_REQUEST));
            } else {
                Errors error = validate(image.cluster(), request.brokerId(), partition, change);
                int[] newIsr =
                        change.newIsr().stream().mapToInt(IsrMember::brokerId).toArray();
                if (error != Errors.NONE) {
                    results.add(result(topicId, partitionId, error, partition));
                } else if (sameMembers(newIsr, partition.isr())) {
                    results.add(result(topicId, partitionId, Errors.NONE, partition));
                } else {
                    PartitionChangeBuilder builder = builder(image, topic, partitionId, image.cluster()::isActive)
                            .withTargetIsr(newIsr);
                    ReassignmentControl.completeIfCaughtUp(partition, newIsr, builder);
                    Optional<PartitionChangeRecord> record = builder.build();
                    PartitionImage next = record.map(partition::withChange).orElse(partition);
                    record.ifPresent(records::add);
                    Errors outcome = next.leader() == request.brokerId() ? Errors.NONE : Errors.NEW_LEADER_ELECTED;
                    results.add(result(topicId, partitionId, outcome, next));
                }
            }
        }
        return ControllerResult.of(records, new AlterPartitionReply(Errors.NONE, results));
    }

    private static Errors validate(ClusterImage cluster, int sender, PartitionImage partition, PartitionIsr change) {
        if (change.leaderEpoch() != partition.leaderEpoch()) {
            return Errors.FENCED_LEADER_EPOCH;
        }
        if (partition.leader() != sender) {
            return Errors.INVALID_REQUEST;
        }
        int[] newIsr = change.newIsr().stream().mapToInt(IsrMember::brokerId).toArray();
        if (change.partitionEpoch() != partition.partitionEpoch() && !sameMembers(newIsr, partition.isr())) {
            return Errors.INVALID_UPDATE_VERSION;
        }
        if (newIsr.length == 0
                || Arrays.stream(newIsr).distinct().count() != newIsr.length
                || !PartitionChangeBuilder.contains(newIsr, sender)
                || Arrays.stream(newIsr).anyMatch(member -> !partition.hasReplica(member))) {
            return Errors.INVALID_REQUEST;
        }
        for (IsrMember member : change.newIsr()) {
            BrokerRegistration broker = cluster.broker(member.brokerId());
            boolean eligible = broker != null
                    && broker.isActive()
                    && (member.brokerEpoch() == -1 || member.brokerEpoch() == broker.epoch());
            if (!eligible) {
                return Errors.INELIGIBLE_REPLICA;
            }
        }
        return Errors.NONE;
    }

    /** ISRs are sets: a leader sends its members sorted, the image keeps the order the controller wrote. */
    private static boolean sameMembers(int[] a, int[] b) {
        int[] x = a.clone();
        int[] y = b.clone();
        Arrays.sort(x);
        Arrays.sort(y);
        return Arrays.equals(x, y);
    }

    private static PartitionResult result(Uuid topicId, int partitionId, Errors error, PartitionImage partition) {
        return new PartitionResult(
                topicId,
                partitionId,
                error,
                partition.leader(),
                partition.leaderEpoch(),
                Arrays.stream(partition.isr()).boxed().toList(),
                partition.partitionEpoch());
    }

    /** The election kinds of ElectLeaders, with Kafka's wire values. */
    public enum ElectionType {
        PREFERRED((byte) 0),
        UNCLEAN((byte) 1);

        private final byte value;

        ElectionType(byte value) {
            this.value = value;
        }

        public byte value() {
            return value;
        }

        public static ElectionType fromValue(byte value) {
            for (ElectionType type : values()) {
                if (type.value == value) {
                    return type;
                }
            }
            throw new IllegalArgumentException("unknown election type " + value);
        }
    }
}
