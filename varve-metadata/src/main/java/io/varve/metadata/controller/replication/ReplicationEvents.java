package io.varve.metadata.controller.replication;

import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.PartitionImage;
import io.varve.metadata.image.TopicImage;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.PartitionChangeRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The replication state changes in a batch of records, for the controller's log (one line each, once the
 * batch is committed): unclean elections (a leader named from outside the partition's ISR and ELR may lack
 * committed records, and operators must hear of it) and reassignments started, replaced, completed or
 * cancelled.
 */
public final class ReplicationEvents {

    private ReplicationEvents() {}

    /** The last known ELR member elected when ISR and ELR are empty: the last known leader, not unclean. */
    private static boolean lastKnownLeader(PartitionImage partition, int leader) {
        return partition.isr().length == 0
                && partition.elr().length == 0
                && PartitionChangeBuilder.contains(partition.lastKnownElr(), leader);
    }

    /** One line per unclean election in {@code records}, judged against {@code before}. */
    public static List<String> uncleanElections(MetadataImage before, List<MetadataRecord> records) {
        List<String> lines = new ArrayList<>();
        for (MetadataRecord record : records) {
            if (!(record instanceof PartitionChangeRecord change)
                    || change.leader() == PartitionChangeRecord.NO_LEADER
                    || change.leader() == PartitionChangeRecord.NO_LEADER_CHANGE
                    || change.replicas() != null) {
                // A change of replicas completes or cancels a reassignment: its leader comes from the ISR it writes.
                continue;
            }
            TopicImage topic = before.topics().getTopic(change.topicId());
            PartitionImage partition = topic == null ? null : topic.partition(change.partitionId());
            if (partition != null
                    && !partition.isInIsr(change.leader())
                    && !partition.isInElr(change.leader())
                    && !lastKnownLeader(partition, change.leader())) {
                lines.add("broker " + change.leader() + " now leads " + topic.name() + "-" + change.partitionId()
                        + " although it was not in the ISR " + Arrays.toString(partition.isr())
                        + " (unclean.leader.election.enable): records the ISR had committed may be lost");
            }
        }
        return lines;
    }

    /** One line per reassignment that {@code records} start, replace, complete or cancel, judged against {@code before}. */
    public static List<String> reassignments(MetadataImage before, List<MetadataRecord> records) {
        List<String> lines = new ArrayList<>();
        for (MetadataRecord record : records) {
            if (!(record instanceof PartitionChangeRecord change)) {
                continue;
            }
            TopicImage topic = before.topics().getTopic(change.topicId());
            PartitionImage partition = topic == null ? null : topic.partition(change.partitionId());
            if (partition == null || (change.replicas() == null && change.addingReplicas() == null)) {
                continue;
            }
            PartitionImage after = partition.withChange(change);
            String name = topic.name() + "-" + change.partitionId();
            String replicas = Arrays.toString(after.replicas());
            if (after.isReassigning()) {
                lines.add("Reassignment of " + name + (partition.isReassigning() ? " replaced" : " started")
                        + ": replicas " + replicas + ", adding " + Arrays.toString(after.addingReplicas())
                        + ", removing " + Arrays.toString(after.removingReplicas()));
            } else if (partition.isReassigning()
                    && Arrays.stream(partition.addingReplicas()).noneMatch(after::hasReplica)) {
                lines.add("Reassignment of " + name + " cancelled: replicas " + replicas);
            } else {
                lines.add(
                        "Reassignment of " + name + " completed: replicas " + replicas + ", leader " + after.leader());
            }
        }
        return lines;
    }
}
