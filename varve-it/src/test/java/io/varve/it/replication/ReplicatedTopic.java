package io.varve.it.replication;

import static org.awaitility.Awaitility.await;

import io.varve.it.cluster.ClusterNode;
import io.varve.it.cluster.ClusterProcesses;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.TopicExistsException;

/** A topic with replication factor 3 and {@code min.insync.replicas=2} on a cluster, and questions about its state. */
final class ReplicatedTopic {
    static final Duration BOUND = Duration.ofSeconds(90);

    private final ClusterProcesses cluster;
    private final String name;
    private final int partitions;
    private Admin admin;

    private ReplicatedTopic(ClusterProcesses cluster, String name, int partitions) {
        this.cluster = cluster;
        this.name = name;
        this.partitions = partitions;
    }

    /** Creates the topic (retrying while the cluster forms) and waits until every partition's ISR is whole. */
    static ReplicatedTopic create(ClusterProcesses cluster, String name, int partitions, Map<String, String> configs) {
        return create(cluster, name, partitions, (short) 3, configs);
    }

    /** As {@link #create(ClusterProcesses, String, int, Map)} with {@code replicationFactor} replicas. */
    static ReplicatedTopic create(
            ClusterProcesses cluster,
            String name,
            int partitions,
            short replicationFactor,
            Map<String, String> configs) {
        ReplicatedTopic topic = new ReplicatedTopic(cluster, name, partitions);
        await("topic " + name + " created at replication factor " + replicationFactor)
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptionsMatching(e -> !(e instanceof AssertionError))
                .until(() -> {
                    try {
                        topic.admin()
                                .createTopics(
                                        List.of(new NewTopic(name, partitions, replicationFactor).configs(configs)))
                                .all()
                                .get(10, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        if (!(e.getCause() instanceof TopicExistsException)) {
                            throw e;
                        }
                    }
                    return true;
                });
        topic.awaitIsrSize(replicationFactor);
        return topic;
    }

    String name() {
        return name;
    }

    /** One admin client bootstrapped on every broker (it finds the live ones), closed with the cluster. */
    synchronized Admin admin() {
        if (admin == null) {
            admin = cluster.admin(cluster.brokers().get(0), Map.of("bootstrap.servers", bootstrap()));
        }
        return admin;
    }

    static String bootstrap(List<ClusterNode> nodes) {
        return String.join(",", nodes.stream().map(ClusterNode::bootstrap).toList());
    }

    String bootstrap() {
        return bootstrap(cluster.brokers());
    }

    List<TopicPartitionInfo> describe() throws Exception {
        TopicDescription description = admin().describeTopics(List.of(name))
                .allTopicNames()
                .get(10, TimeUnit.SECONDS)
                .get(name);
        return description.partitions();
    }

    /** The leader of {@code partition} now, or -1. */
    int leader(int partition) throws Exception {
        TopicPartitionInfo info = describe().get(partition);
        return info.leader() == null || info.leader().isEmpty()
                ? -1
                : info.leader().id();
    }

    void awaitIsrSize(int size) {
        await("every partition of " + name + " has a leader and an ISR of " + size)
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptionsMatching(e -> !(e instanceof AssertionError))
                .until(() -> describe().stream()
                        .allMatch(p -> p.leader() != null
                                && !p.leader().isEmpty()
                                && p.isr().size() == size));
    }

    /** Waits until {@code partition} is led by a broker other than {@code formerLeader}; returns the new leader. */
    int awaitLeaderOtherThan(int partition, int formerLeader) {
        int[] leader = {-1};
        await("partition " + partition + " of " + name + " led by a broker other than " + formerLeader)
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptionsMatching(e -> !(e instanceof AssertionError))
                .until(() -> {
                    leader[0] = leader(partition);
                    return leader[0] != -1 && leader[0] != formerLeader;
                });
        return leader[0];
    }

    int partitions() {
        return partitions;
    }
}
