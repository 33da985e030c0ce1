package io.varve.metadata.controller.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.metadata.controller.ClusterFixture;
import io.varve.metadata.controller.ControllerConfig;
import io.varve.metadata.controller.ControllerResult;
import io.varve.metadata.controller.CreateTopicRequest;
import io.varve.metadata.controller.RackAwareReplicaPlacer;
import io.varve.metadata.controller.TopicControl;
import io.varve.metadata.controller.feature.SupportedFeatures;
import io.varve.metadata.controller.replication.AlterPartitionRequest;
import io.varve.metadata.controller.replication.AlterPartitionRequest.IsrMember;
import io.varve.metadata.controller.replication.ReplicationControl;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.PartitionImage;
import io.varve.metadata.image.TopicImage;
import io.varve.metadata.record.Endpoint;
import io.varve.metadata.record.MetadataRecord;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Brokers that register, heartbeat (sometimes lagging), go silent, shut down and restart at random,
 * topics created and ISRs expanded in between, against the lifecycle's invariants after every step.
 * Records commit at once; the failing seed is in the assertion message.
 */
class ClusterLifecycleSimulationTest {

    private static final int BROKERS = 5;
    private static final long TIMEOUT_MS = 9_000;

    /** What a broker process knows of itself; epoch -1 = not running. */
    private static final class Process {
        long epoch = -1;
        boolean shuttingDown;
    }

    /** How often the interesting transitions happened, so the test proves it exercised them. */
    private static final class Seen {
        int shutdowns;
        int sessionFencings;
        int duplicates;
        int offlinePartitions;
        int isrExpansions;
    }

    @Test
    void invariantsHoldOverRandomLifecycles() {
        Seen seen = new Seen();
        for (int seed = 0; seed < 150; seed++) {
            simulate(seed, seen);
        }
        assertThat(seen.shutdowns).isPositive();
        assertThat(seen.sessionFencings).isPositive();
        assertThat(seen.duplicates).isPositive();
        assertThat(seen.offlinePartitions).isPositive();
        assertThat(seen.isrExpansions).isPositive();
    }

    private static void simulate(int seed, Seen seen) {
        Random random = new Random(seed);
        ClusterControl control = new ClusterControl("c", new BrokerHeartbeats(TIMEOUT_MS), new ReplicationControl());
        AtomicLong ids = new AtomicLong(1);
        TopicControl topics = new TopicControl(
                new ControllerConfig(3, (short) 1),
                new RackAwareReplicaPlacer(),
                () -> new Uuid(0, ids.getAndIncrement()));
        ReplicationControl replication = new ReplicationControl();
        Map<Integer, Process> processes = new HashMap<>();
        for (int id = 1; id <= BROKERS; id++) {
            processes.put(id, new Process());
        }
        Map<String, int[]> lastEpochs = new HashMap<>();
        MetadataImage image = MetadataImage.EMPTY;
        long nowMs = 0;
        for (int step = 0; step < 300; step++) {
            String where = "seed " + seed + " step " + step;
            nowMs += random.nextInt(4_000);
            int id = 1 + random.nextInt(BROKERS);
            Process process = processes.get(id);
            int action = random.nextInt(20);
            List<MetadataRecord> records;
            if (process.epoch < 0) {
                ControllerResult<BrokerRegistrationReply> result = control.register(image, registration(id), nowMs);
                if (result.response().error() == Errors.NONE) {
                    process.epoch = result.response().brokerEpoch();
                    process.shuttingDown = false;
                } else {
                    assertThat(result.response().error()).as(where).isEqualTo(Errors.DUPLICATE_BROKER_REGISTRATION);
                    seen.duplicates++;
                }
                records = result.records();
            } else if (action == 0) {
                process.epoch = -1; // crash: silence until the session runs out, then a new incarnation
                records = List.of();
            } else if (action == 1) {
                process.shuttingDown = true;
                records = List.of();
            } else if (action == 2) {
                records = createTopic(topics, image, random);
            } else if (action == 3) {
                records = expandSomeIsr(replication, image, random, where);
                seen.isrExpansions += records.size();
            } else {
                long offset = random.nextInt(4) == 0 ? image.offset() - 1 : image.offset();
                ControllerResult<BrokerHeartbeatReply> result = control.heartbeat(
                        image,
                        new BrokerHeartbeatRequest(id, process.epoch, offset, false, process.shuttingDown),
                        nowMs);
                if (result.response().error() == Errors.STALE_BROKER_EPOCH) {
                    process.epoch = -1; // replaced or unregistered: this incarnation is gone
                } else if (result.response().shouldShutDown()) {
                    assertThat(replication.leaderships(ClusterFixture.apply(image, result.records()), id))
                            .as(where + ": told to shut down while leading")
                            .isZero();
                    process.epoch = -1;
                    seen.shutdowns++;
                }
                records = result.records();
            }
            image = ClusterFixture.apply(image, records);
            ControllerResult<List<Integer>> expired = control.fenceExpiredBrokers(image, nowMs);
            seen.sessionFencings += expired.response().size();
            image = ClusterFixture.apply(image, expired.records());
            assertInvariants(image, lastEpochs, where);
            seen.offlinePartitions += (int) image.topics().topicsById().values().stream()
                    .flatMap(topic -> topic.partitions().values().stream())
                    .filter(partition -> partition.leader() < 0)
                    .count();
        }
    }

    private static BrokerRegistrationRequest registration(int id) {
        return new BrokerRegistrationRequest(
                id,
                "c",
                Uuid.randomUuid(),
                List.of(new Endpoint("PLAINTEXT", "b" + id, 9092, "PLAINTEXT")),
                "rack-" + (id % 3),
                SupportedFeatures.THIS_BUILD);
    }

    private static List<MetadataRecord> createTopic(TopicControl topics, MetadataImage image, Random random) {
        int active = image.cluster().activeBrokerIds().size();
        if (active == 0) {
            return List.of();
        }
        String name = "t" + image.topics().topicsById().size();
        short replicationFactor = (short) (1 + random.nextInt(active));
        return topics.createTopics(
                        image, List.of(new CreateTopicRequest(name, 2, replicationFactor, Map.of(), Map.of())), false)
                .records();
    }

    /** A leader asks for every active replica in its ISR, quoting the current epochs: that must succeed. */
    private static List<MetadataRecord> expandSomeIsr(
            ReplicationControl replication, MetadataImage image, Random random, String where) {
        List<TopicImage> all = List.copyOf(image.topics().topicsById().values());
        if (all.isEmpty()) {
            return List.of();
        }
        TopicImage topic = all.get(random.nextInt(all.size()));
        PartitionImage partition = topic.partition(0);
        int leader = partition.leader();
        if (leader < 0) {
            return List.of();
        }
        List<IsrMember> isr = Arrays.stream(partition.replicas())
                .filter(replica -> replica == leader || image.cluster().isActive(replica))
                .mapToObj(replica ->
                        new IsrMember(replica, image.cluster().broker(replica).epoch()))
                .toList();
        ControllerResult<io.varve.metadata.controller.replication.AlterPartitionReply> result =
                replication.alterPartition(
                        image,
                        new AlterPartitionRequest(
                                leader,
                                image.cluster().broker(leader).epoch(),
                                List.of(new AlterPartitionRequest.PartitionIsr(
                                        topic.id(), 0, partition.leaderEpoch(), isr, partition.partitionEpoch()))));
        assertThat(result.response().partitions().get(0).error()).as(where).isEqualTo(Errors.NONE);
        return result.records();
    }

    private static void assertInvariants(MetadataImage image, Map<String, int[]> lastEpochs, String where) {
        image.topics().topicsByName().forEach((name, topic) -> topic.partitions()
                .forEach((id, p) -> {
                    String at = where + ", " + name + "-" + id + " " + p;
                    int[] isr = p.isr();
                    assertThat(isr).as(at).isNotEmpty();
                    assertThat(Arrays.stream(isr).allMatch(p::hasReplica))
                            .as(at)
                            .isTrue();
                    if (isr.length > 1) {
                        assertThat(Arrays.stream(isr).allMatch(image.cluster()::isActive))
                                .as(at + ": a multi-member ISR holds only active brokers")
                                .isTrue();
                    }
                    if (p.leader() >= 0) {
                        assertThat(p.isInIsr(p.leader())).as(at).isTrue();
                        assertThat(image.cluster().isActive(p.leader()))
                                .as(at + ": leaders are active")
                                .isTrue();
                    } else {
                        assertThat(Arrays.stream(isr).noneMatch(image.cluster()::isActive))
                                .as(at + ": offline only while no ISR member can lead")
                                .isTrue();
                    }
                    int[] epochs = {p.leaderEpoch(), p.partitionEpoch()};
                    int[] before = lastEpochs.put(name + "-" + id, epochs);
                    if (before != null) {
                        assertThat(epochs[0]).as(at).isGreaterThanOrEqualTo(before[0]);
                        assertThat(epochs[1]).as(at).isGreaterThanOrEqualTo(before[1]);
                    }
                }));
    }
}
