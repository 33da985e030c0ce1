package io.varve.metadata.controller.replication;

import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.PartitionImage;
import io.varve.metadata.image.TopicImage;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.PartitionChangeRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds the unclean elections in a batch of records, for the controller's log: a leader named from outside
 * the partition's ISR and ELR may lack committed records, and operators must hear of it.
 */
public final class UncleanElections {

    private UncleanElections() {}

    /** The last known ELR member elected when ISR and ELR are empty: the last known leader, not unclean. */
    private static boolean lastKnownLeader(PartitionImage partition, int leader) {
        return partition.isr().length == 0
                && partition.elr().length == 0
                && PartitionChangeBuilder.contains(partition.lastKnownElr(), leader);
    }

    /** One line per unclean election in {@code records}, judged against {@code before}. */
    public static List<String> describe(MetadataImage before, List<MetadataRecord> records) {
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
                        + " although it was not in the ISR " + java.util.Arrays.toString(partition.isr())
                        + " (unclean.leader.election.enable): records the ISR had committed may be lost");
            }
        }
        return lines;
    }
}
