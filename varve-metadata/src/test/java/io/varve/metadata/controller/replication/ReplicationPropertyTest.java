package io.varve.metadata.controller.replication;

import static io.varve.metadata.controller.ClusterFixture.apply;
import static io.varve.metadata.controller.ClusterFixture.cluster;
import static io.varve.metadata.controller.replication.ReplicationTestSupport.elrOn;
import static io.varve.metadata.controller.replication.ReplicationTestSupport.fence;
import static io.varve.metadata.controller.replication.ReplicationTestSupport.topicConfig;
import static io.varve.metadata.controller.replication.ReplicationTestSupport.unfence;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.metadata.controller.ClusterFixture;
import io.varve.metadata.controller.cluster.BrokerHeartbeats;
import io.varve.metadata.controller.cluster.BrokerRegistrationRequest;
import io.varve.metadata.controller.cluster.ClusterControl;
import io.varve.metadata.controller.feature.SupportedFeatures;
import io.varve.metadata.controller.replication.AlterPartitionRequest.IsrMember;
import io.varve.metadata.controller.replication.AlterPartitionRequest.PartitionIsr;
import io.varve.metadata.controller.replication.ReplicationControl.ElectionType;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.PartitionImage;
import io.varve.metadata.image.TopicImage;
import io.varve.metadata.record.Endpoint;
import io.varve.metadata.record.MetadataRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/**
 * Random fencings, returns, leader ISR changes, reassignments (and cancellations) and elections against the
 * invariants of the partition state: a leader is in the ISR or -1; the ELR is disjoint from the ISR; ISR,
 * ELR and reassignment replicas are replicas; leader and partition epochs only grow; and no leader comes
 * from outside the ISR and ELR unless unclean election is enabled. 150 seeds; a failure names its seed.
 */
class ReplicationPropertyTest {

    private static final int BROKERS = 5;
    private static final int TOPICS = 6;

    @Test
    void partitionInvariantsHoldOverRandomHistories() {
        for (int seed = 0; seed < 150; seed++) {
            run(seed);
        }
    }

    private static void run(long seed) {
        Random random = new Random(seed);
        boolean elr = random.nextBoolean();
        boolean unclean = random.nextInt(4) == 0;
        ReplicationControl replication = new ReplicationControl(new ReplicationPolicy(unclean, 1));
        ReassignmentControl reassignments = new ReassignmentControl(replication);
        ElectionControl elections = new ElectionControl(replication);
        ClusterFixture fixture =
                cluster().unfenced(IntStream.rangeClosed(1, BROKERS).toArray());
        if (elr) {
            fixture.record(elrOn());
        }
        for (int t = 0; t < TOPICS; t++) {
            int[] replicas = randomReplicas(random, 1 + random.nextInt(4));
            fixture.partition(replicas, replicas, replicas[0]);
            fixture.record(topicConfig("t" + t, "min.insync.replicas", Integer.toString(1 + random.nextInt(3))));
        }
        MetadataImage image = fixture.image();
        for (int step = 0; step < 60; step++) {
            String where = "seed " + seed + " step " + step + " (elr " + elr + ", unclean " + unclean + ")";
            int broker = 1 + random.nextInt(BROKERS);
            int topic = random.nextInt(TOPICS);
            MetadataImage next;
            List<MetadataRecord> records;
            switch (random.nextInt(7)) {
                case 6 -> {
                    // A restart without a clean shutdown: a new incarnation, fenced, out of every ELR.
                    ClusterControl clusterControl = new ClusterControl("c1", new BrokerHeartbeats(9_000), replication);
                    BrokerRegistrationRequest request = new BrokerRegistrationRequest(
                            broker,
                            "c1",
                            new Uuid(step + 2, broker),
                            List.of(new Endpoint("PLAINTEXT", "b" + broker, 9092, "PLAINTEXT")),
                            null,
                            SupportedFeatures.THIS_BUILD,
                            random.nextBoolean()
                                    ? -1
                                    : image.cluster().broker(broker).epoch());
                    records = clusterControl.register(image, request, 0).records();
                    next = apply(image, records);
                }
                case 0 -> {
                    if (image.cluster().isActive(broker)) {
                        records = replication.removeFromIsrsAndLeaderships(image, broker);
                        next = fence(replication, image, broker);
                    } else {
                        records = List.of();
                        next = unfence(replication, image, broker);
                    }
                }
                case 1 -> {
                    records = leaderAlters(replication, image, topic, random);
                    next = apply(image, records);
                }
                case 2 -> {
                    List<Integer> target = random.nextInt(5) == 0
                            ? null
                            : Arrays.stream(randomReplicas(random, 1 + random.nextInt(4)))
                                    .boxed()
                                    .toList();
                    records = reassignments
                            .alter(image, List.of(new PartitionReassignment("t" + topic, 0, target)))
                            .records();
                    next = apply(image, records);
                }
                case 3 -> {
                    records = elections
                            .electLeaders(image, ElectionType.PREFERRED, Map.of("t" + topic, List.of(0)))
                            .records();
                    next = apply(image, records);
                }
                case 4 -> {
                    records = elections.rebalance(image, 10);
                    next = apply(image, records);
                }
                default -> {
                    records = random.nextBoolean()
                            ? replication.electOfflineLeaders(image)
                            : replication.applyElectionRules(image);
                    next = apply(image, records);
                    assertThat(replication.applyElectionRules(apply(next, replication.applyElectionRules(next))))
                            .as(where + ": the election rules reach a fixpoint")
                            .isEmpty();
                }
            }
            if (!unclean) {
                assertThat(ReplicationEvents.uncleanElections(image, records))
                        .as(where + ": no unclean election; records " + records + " before " + before(image))
                        .isEmpty();
            }
            assertInvariants(image, next, where);
            image = next;
        }
    }

    private static String before(MetadataImage image) {
        StringBuilder s = new StringBuilder();
        image.topics()
                .topicsByName()
                .forEach((name, topic) ->
                        s.append(name).append(' ').append(topic.partition(0)).append('\n'));
        image.cluster().brokers().values().forEach(b -> s.append(b).append('\n'));
        return s.toString();
    }

    /** The leader (if any) asks for a random ISR of active replicas holding itself. */
    private static List<MetadataRecord> leaderAlters(
            ReplicationControl replication, MetadataImage image, int topic, Random random) {
        TopicImage t = image.topics().getTopic("t" + topic);
        PartitionImage p = t.partition(0);
        if (p.leader() < 0 || !image.cluster().isActive(p.leader())) {
            return List.of();
        }
        List<Integer> isr = new ArrayList<>();
        isr.add(p.leader());
        for (int replica : p.replicas()) {
            if (replica != p.leader() && image.cluster().isActive(replica) && random.nextBoolean()) {
                isr.add(replica);
            }
        }
        AlterPartitionRequest request = new AlterPartitionRequest(
                p.leader(),
                image.cluster().broker(p.leader()).epoch(),
                List.of(new PartitionIsr(
                        t.id(),
                        0,
                        p.leaderEpoch(),
                        isr.stream().map(IsrMember::of).toList(),
                        p.partitionEpoch())));
        return replication.alterPartition(image, request).records();
    }

    private static int[] randomReplicas(Random random, int count) {
        List<Integer> brokers =
                new ArrayList<>(IntStream.rangeClosed(1, BROKERS).boxed().toList());
        Collections.shuffle(brokers, random);
        return brokers.subList(0, count).stream().mapToInt(Integer::intValue).toArray();
    }

    private static void assertInvariants(MetadataImage before, MetadataImage after, String where) {
        Map<String, PartitionImage> previous = new HashMap<>();
        before.topics().topicsByName().forEach((name, topic) -> previous.put(name, topic.partition(0)));
        after.topics().topicsByName().forEach((name, topic) -> {
            PartitionImage p = topic.partition(0);
            PartitionImage old = previous.get(name);
            String at = where + " " + name + " " + p;
            if (p.leader() != -1) {
                assertThat(p.isInIsr(p.leader())).as(at + ": leader in ISR").isTrue();
            }
            for (int member : p.elr()) {
                assertThat(p.isInIsr(member)).as(at + ": ELR disjoint from ISR").isFalse();
            }
            for (int[] subset : List.of(p.isr(), p.elr(), p.addingReplicas(), p.removingReplicas())) {
                for (int member : subset) {
                    assertThat(p.hasReplica(member))
                            .as(at + ": within the replicas")
                            .isTrue();
                }
            }
            assertThat(p.replicas()).as(at + ": replicas distinct").doesNotHaveDuplicates();
            assertThat(p.leaderEpoch()).as(at + ": leader epoch").isGreaterThanOrEqualTo(old.leaderEpoch());
            assertThat(p.partitionEpoch()).as(at + ": partition epoch").isGreaterThanOrEqualTo(old.partitionEpoch());
            if (!p.equals(old)) {
                assertThat(p.partitionEpoch())
                        .as(at + ": a change raises the partition epoch")
                        .isGreaterThan(old.partitionEpoch());
            }
            if (p.leader() != old.leader()) {
                assertThat(p.leaderEpoch())
                        .as(at + ": a new leader raises the leader epoch")
                        .isGreaterThan(old.leaderEpoch());
            }
        });
    }
}
