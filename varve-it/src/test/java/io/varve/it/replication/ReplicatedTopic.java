package io.varve.it.replication;

import static org.awaitility.Awaitility.await;

import io.varve.it.cluster.ClusterNode;
import io.varve.it.cluster.ClusterProcesses;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * A replicated topic on a cluster of real nodes (by default replication factor 3 and {@code min.insync.replicas=2}, or
 * as a {@link NewTopic} says, with its own replica assignment), and questions about its state: its partitions'
 * leaders and ISRs, asked through an admin client that finds whichever brokers are alive.
 */
public final class ReplicatedTopic {
    public static final Duration BOUND = Duration.ofSeconds(90);

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
    public static ReplicatedTopic create(
            ClusterProcesses cluster, String name, int partitions, Map<String, String> configs) {
        return create(cluster, name, partitions, (short) 3, configs);
    }

    /** As {@link #create(ClusterProcesses, String, int, Map)} with {@code replicationFactor} replicas. */
    public static ReplicatedTopic create(
            ClusterProcesses cluster,
            String name,
            int partitions,
            short replicationFactor,
            Map<String, String> configs) {
        ReplicatedTopic topic = new ReplicatedTopic(cluster, name, partitions);
        topic.createAs(new NewTopic(name, partitions, replicationFactor).configs(configs));
        topic.awaitIsrSize(replicationFactor);
        return topic;
    }

    /**
     * Creates the topic {@code spec} describes (its replica assignment, if it has one, names the preferred leader of
     * each partition first), retrying while the cluster forms, and waits until every partition has a leader and all
     * its replicas in its ISR.
     */
    public static ReplicatedTopic create(ClusterProcesses cluster, NewTopic spec) {
        int partitions = spec.replicasAssignments() == null
                ? spec.numPartitions()
                : spec.replicasAssignments().size();
        ReplicatedTopic topic = new ReplicatedTopic(cluster, spec.name(), partitions);
        topic.createAs(spec);
        topic.awaitIsrWhole();
        return topic;
    }

    /** A topic of {@code partitions} partitions created by someone else (an internal topic a coordinator made …). */
    public static ReplicatedTopic existing(ClusterProcesses cluster, String name, int partitions) {
        return new ReplicatedTopic(cluster, name, partitions);
    }

    private void createAs(NewTopic spec) {
        await("topic " + name + " created")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptionsMatching(e -> !(e instanceof AssertionError))
                .until(() -> {
                    try {
                        admin().createTopics(List.of(spec)).all().get(10, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        if (!(e.getCause() instanceof TopicExistsException)) {
                            throw e;
                        }
                    }
                    return true;
                });
    }

    public String name() {
        return name;
    }

    /** One admin client bootstrapped on every broker (it finds the live ones), closed with the cluster. */
    public synchronized Admin admin() {
        if (admin == null) {
            admin = cluster.admin(cluster.brokers().get(0), Map.of("bootstrap.servers", bootstrap()));
        }
        return admin;
    }

    public static String bootstrap(List<ClusterNode> nodes) {
        return String.join(",", nodes.stream().map(ClusterNode::bootstrap).toList());
    }

    /** Every broker's address: a client bootstrapped on it finds whichever are alive. */
    public String bootstrap() {
        return bootstrap(cluster.brokers());
    }

    public List<TopicPartitionInfo> describe() throws Exception {
        TopicDescription description = admin().describeTopics(List.of(name))
                .allTopicNames()
                .get(10, TimeUnit.SECONDS)
                .get(name);
        return description.partitions();
    }

    /** The description of {@code partition} now: its leader, replicas, ISR and ELR. */
    public TopicPartitionInfo partition(int partition) throws Exception {
        return describe().get(partition);
    }

    /** Every partition's leader now, by partition (-1: none). */
    public Map<Integer, Integer> leaders() throws Exception {
        Map<Integer, Integer> leaders = new TreeMap<>();
        for (TopicPartitionInfo p : describe()) {
            leaders.put(
                    p.partition(),
                    p.leader() == null || p.leader().isEmpty() ? -1 : p.leader().id());
        }
        return leaders;
    }

    /**
     * The partition that holds {@code key} in a coordinator's internal topic (a group id in {@code __consumer_offsets},
     * a transactional id in {@code __transaction_state}): the absolute value of the key's hash code (0 for the one
     * that has none) modulo the partitions, as Kafka places them.
     */
    public int partitionFor(String key) {
        int h = key.hashCode();
        return (h == Integer.MIN_VALUE ? 0 : Math.abs(h)) % partitions;
    }

    /** The leader of {@code partition} now, or -1. */
    public int leader(int partition) throws Exception {
        return leaderOf(partition(partition));
    }

    private static int leaderOf(TopicPartitionInfo p) {
        return p.leader() == null || p.leader().isEmpty() ? -1 : p.leader().id();
    }

    /** Waits until every partition has a leader and an ISR of {@code size}. */
    public void awaitIsrSize(int size) {
        awaitEveryPartition("has a leader and an ISR of " + size, p -> p.isr().size() == size);
    }

    /** Waits until every partition has a leader and all its replicas in its ISR. */
    public void awaitIsrWhole() {
        awaitEveryPartition(
                "has a leader and all its replicas in its ISR",
                p -> p.isr().size() == p.replicas().size());
    }

    private void awaitEveryPartition(String what, Predicate<TopicPartitionInfo> isr) {
        await("every partition of " + name + " " + what)
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptionsMatching(e -> !(e instanceof AssertionError))
                .until(() -> describe().stream().allMatch(p -> leaderOf(p) != -1 && isr.test(p)));
    }

    /**
     * Waits until every partition is led by its preferred replica (the first of its assignment), electing it where
     * another leads: it may not have been unfenced yet when the topic was created.
     */
    public void awaitPreferredLeaders() {
        await("every partition of " + name + " led by its preferred replica")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptionsMatching(e -> !(e instanceof AssertionError))
                .until(() -> {
                    Set<TopicPartition> elsewhere = new HashSet<>();
                    for (TopicPartitionInfo p : describe()) {
                        if (p.leader() == null
                                || p.leader().id() != p.replicas().get(0).id()) {
                            elsewhere.add(new TopicPartition(name, p.partition()));
                        }
                    }
                    if (elsewhere.isEmpty()) {
                        return true;
                    }
                    admin().electLeaders(ElectionType.PREFERRED, elsewhere)
                            .all()
                            .get(10, TimeUnit.SECONDS);
                    return false;
                });
    }

    /** Waits until {@code partition} is led by a broker other than {@code formerLeader}; returns the new leader. */
    public int awaitLeaderOtherThan(int partition, int formerLeader) {
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

    public int partitions() {
        return partitions;
    }
}
