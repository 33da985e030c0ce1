package io.varve.metadata.controller.replication;

import io.varve.metadata.controller.replication.ReplicationPolicy.TopicRules;
import io.varve.metadata.image.PartitionImage;
import io.varve.metadata.record.PartitionChangeRecord;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;
import org.apache.kafka.common.Uuid;

/**
 * One partition's next state (replicas, ISR, leader, ELR) as a {@link PartitionChangeRecord}, by the
 * rules of Kafka's controller. Pure; one builder per decision.
 *
 * <p>Leader election, in this order (replicas in assignment order, so the preferred leader wins ties):
 *
 * <ol>
 *   <li>the current leader stays if it is still in the ISR and eligible (unless a preferred election
 *       asks for the first replica and that one can lead);
 *   <li>an eligible ISR member;
 *   <li>with ELR on, an eligible ELR member (clean: it holds every committed record), which becomes the
 *       whole ISR;
 *   <li>with ELR on and both ISR and ELR empty, an eligible last known ELR member (one that was an ELR
 *       member until it restarted without a clean shutdown), which becomes the whole ISR: the last known
 *       leader, as Kafka elects it and as the last ISR member was elected before KIP-966;
 *   <li>with unclean election allowed, any eligible replica, last known ELR members first, which
 *       becomes the whole ISR ({@link #electedUncleanly()});
 *   <li>otherwise no leader (-1): the partition is offline until one of the above returns.
 * </ol>
 *
 * <p>ELR upkeep (KIP-966), with ELR on: while the ISR has at least {@code min.insync.replicas} members
 * the high watermark can move, so there are no eligible leader replicas; below it the high watermark is
 * stuck, so whoever leaves the ISR still holds every committed record and joins the ELR. With ELR on the
 * last ISR member may leave too (the ISR becomes empty, the member is in the ELR); with it off the last
 * member stays in the ISR, so the partition remembers whose data is complete.
 */
final class PartitionChangeBuilder {

    /** How the leader is chosen. */
    enum Election {
        /** Keep a valid leader; elect only if it is gone. */
        KEEP,
        /** As KEEP, but move to the first replica when it is in the ISR and eligible. */
        PREFERRED,
        /** As KEEP, and allow an unclean election whatever the topic says (ElectLeaders UNCLEAN). */
        UNCLEAN
    }

    private final Uuid topicId;
    private final int partitionId;
    private final PartitionImage partition;
    private final IntPredicate eligible;
    private final TopicRules rules;
    private int[] targetReplicas;
    private int[] targetAdding;
    private int[] targetRemoving;
    private int[] targetIsr;
    private Election election = Election.KEEP;
    private boolean bumpLeaderEpoch;
    private boolean electedUncleanly;

    /** @param eligible which brokers may lead or be in the ISR (active: registered, unfenced, not shutting down) */
    PartitionChangeBuilder(
            Uuid topicId, int partitionId, PartitionImage partition, IntPredicate eligible, TopicRules rules) {
        this.topicId = topicId;
        this.partitionId = partitionId;
        this.partition = partition;
        this.eligible = eligible;
        this.rules = rules;
        this.targetReplicas = partition.replicas();
        this.targetAdding = partition.addingReplicas();
        this.targetRemoving = partition.removingReplicas();
        this.targetIsr = partition.isr();
    }

    PartitionChangeBuilder withTargetIsr(int[] isr) {
        this.targetIsr = isr.clone();
        return this;
    }

    /** New replicas (and reassignment state); ISR members outside them leave the ISR. */
    PartitionChangeBuilder withTargetReplicas(int[] replicas, int[] adding, int[] removing) {
        this.targetReplicas = replicas.clone();
        this.targetAdding = adding.clone();
        this.targetRemoving = removing.clone();
        return this;
    }

    PartitionChangeBuilder withElection(Election election) {
        this.election = election;
        return this;
    }

    /** Names the leader in the change even if it stays, so that its epoch goes up (a reassignment completes). */
    PartitionChangeBuilder withLeaderEpochBump() {
        this.bumpLeaderEpoch = true;
        return this;
    }

    /** Takes {@code leaving} out of the ISR (see the class comment for the last member) and of the leadership. */
    PartitionChangeBuilder withoutBroker(int leaving) {
        int[] shrunk = without(targetIsr, leaving);
        if (shrunk.length > 0 || rules.elrEnabled()) {
            targetIsr = shrunk;
        }
        return this;
    }

    /** True if the built change elected a leader from outside the ISR and ELR. */
    boolean electedUncleanly() {
        return electedUncleanly;
    }

    Optional<PartitionChangeRecord> build() {
        int[] replicas = targetReplicas;
        int[] isr = IntStream.of(targetIsr).filter(r -> contains(replicas, r)).toArray();
        int[] elr = withElrUpkeep(
                replicas,
                isr,
                IntStream.of(partition.elr()).filter(r -> contains(replicas, r)).toArray());
        int[] lastKnownElr = IntStream.of(partition.lastKnownElr())
                .filter(r -> contains(replicas, r))
                .toArray();
        int leader = partition.leader();
        boolean leaderValid =
                leader != PartitionChangeRecord.NO_LEADER && contains(isr, leader) && eligible.test(leader);
        int preferred = replicas.length == 0 ? -1 : replicas[0];
        if (election == Election.PREFERRED
                && leader != preferred
                && contains(isr, preferred)
                && eligible.test(preferred)) {
            leader = preferred;
        } else if (!leaderValid) {
            int[] inSync = isr;
            leader = firstOf(replicas, r -> contains(inSync, r) && eligible.test(r));
            if (leader == PartitionChangeRecord.NO_LEADER && rules.elrEnabled()) {
                int[] fromElr = elr;
                leader = firstOf(replicas, r -> contains(fromElr, r) && eligible.test(r));
                if (leader != PartitionChangeRecord.NO_LEADER) {
                    isr = new int[] {leader};
                }
            }
            if (leader == PartitionChangeRecord.NO_LEADER && rules.elrEnabled() && isr.length == 0 && elr.length == 0) {
                int[] lastKnown = lastKnownElr;
                leader = firstOf(replicas, r -> contains(lastKnown, r) && eligible.test(r));
                if (leader != PartitionChangeRecord.NO_LEADER) {
                    isr = new int[] {leader};
                }
            }
            if (leader == PartitionChangeRecord.NO_LEADER && (rules.uncleanEnabled() || election == Election.UNCLEAN)) {
                int[] hint = lastKnownElr;
                leader = firstOf(replicas, r -> contains(hint, r) && eligible.test(r));
                if (leader == PartitionChangeRecord.NO_LEADER) {
                    leader = firstOf(replicas, eligible);
                }
                if (leader != PartitionChangeRecord.NO_LEADER) {
                    isr = new int[] {leader};
                    elr = new int[0];
                    lastKnownElr = new int[0];
                    electedUncleanly = true;
                }
            }
        }
        if (!rules.elrEnabled() || isr.length >= rules.minIsr()) {
            elr = new int[0];
            lastKnownElr = new int[0];
        } else if (!electedUncleanly) {
            int[] nextIsr = isr;
            elr = withElrUpkeep(replicas, isr, elr);
            int[] nextElr = elr;
            lastKnownElr = IntStream.of(lastKnownElr)
                    .filter(r -> !contains(nextIsr, r) && !contains(nextElr, r))
                    .toArray();
        }
        return change(replicas, isr, leader, elr, lastKnownElr);
    }

    /**
     * The ELR for this ISR: below {@code min.insync.replicas}, whoever leaves the ISR still holds every committed
     * record (the high watermark cannot move) and joins the ELR; ELR members joining the ISR leave it. Computed
     * before the election too, so that a member leaving now counts as an eligible leader replica (if it is one)
     * rather than leaving the ISR and ELR empty.
     */
    private int[] withElrUpkeep(int[] replicas, int[] isr, int[] elr) {
        if (!rules.elrEnabled() || isr.length >= rules.minIsr()) {
            return elr;
        }
        int[] previousIsr = partition.isr();
        return IntStream.of(replicas)
                .filter(r -> !contains(isr, r) && (contains(elr, r) || contains(previousIsr, r)))
                .toArray();
    }

    private Optional<PartitionChangeRecord> change(
            int[] replicas, int[] isr, int leader, int[] elr, int[] lastKnownElr) {
        boolean replicasChange = !Arrays.equals(replicas, partition.replicas());
        boolean addingChanges = !Arrays.equals(targetAdding, partition.addingReplicas());
        boolean removingChanges = !Arrays.equals(targetRemoving, partition.removingReplicas());
        boolean isrChanges = !Arrays.equals(isr, partition.isr());
        boolean leaderChanges = leader != partition.leader() || bumpLeaderEpoch;
        boolean elrChanges = !Arrays.equals(elr, partition.elr());
        boolean lastKnownElrChanges = !Arrays.equals(lastKnownElr, partition.lastKnownElr());
        if (!replicasChange
                && !addingChanges
                && !removingChanges
                && !isrChanges
                && !leaderChanges
                && !elrChanges
                && !lastKnownElrChanges) {
            return Optional.empty();
        }
        return Optional.of(new PartitionChangeRecord(
                topicId,
                partitionId,
                isrChanges ? isr : null,
                leaderChanges ? leader : PartitionChangeRecord.NO_LEADER_CHANGE,
                replicasChange ? replicas : null,
                addingChanges ? targetAdding : null,
                removingChanges ? targetRemoving : null,
                elrChanges ? elr : null,
                lastKnownElrChanges ? lastKnownElr : null));
    }

    private static int firstOf(int[] replicas, IntPredicate acceptable) {
        for (int replica : replicas) {
            if (acceptable.test(replica)) {
                return replica;
            }
        }
        return PartitionChangeRecord.NO_LEADER;
    }

    static int[] without(int[] brokers, int brokerId) {
        return IntStream.of(brokers).filter(b -> b != brokerId).toArray();
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
