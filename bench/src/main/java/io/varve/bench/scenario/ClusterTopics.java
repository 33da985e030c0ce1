package io.varve.bench.scenario;

import io.varve.bench.RunningCluster;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;

/** Replicated benchmark topics: created with the Admin client, ready once every partition's ISR is whole. */
final class ClusterTopics {

    private static final Duration CREATE_TIMEOUT = Duration.ofMinutes(3);

    private ClusterTopics() {
    }

    static Admin admin(RunningCluster cluster) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 30_000);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) CREATE_TIMEOUT.toMillis());
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "varve-bench-admin");
        return Admin.create(props);
    }

    /** Creates the topics at {@code replicationFactor} and waits until each partition has a leader and a whole ISR. */
    static void create(RunningCluster cluster, Map<String, Integer> partitionsByTopic, int replicationFactor)
            throws IOException, InterruptedException {
        List<NewTopic> topics = new ArrayList<>();
        partitionsByTopic.forEach((name, partitions) ->
                topics.add(new NewTopic(name, partitions, (short) replicationFactor)));
        long deadlineNanos = System.nanoTime() + CREATE_TIMEOUT.toNanos();
        try (Admin admin = admin(cluster)) {
            admin.createTopics(topics).all().get(CREATE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            while (!whole(admin, partitionsByTopic, replicationFactor)) {
                if (System.nanoTime() > deadlineNanos) {
                    throw new IOException("topics " + partitionsByTopic.keySet() + " on " + cluster.kind().displayName()
                            + " did not reach a leader and an ISR of " + replicationFactor + " on every partition within "
                            + CREATE_TIMEOUT.toSeconds() + " s");
                }
                Thread.sleep(50); // polling period of a bounded wait
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("creating " + partitionsByTopic + " on " + cluster.kind().displayName() + " failed: "
                    + (e.getCause() != null ? e.getCause() : e), e);
        }
    }

    private static boolean whole(Admin admin, Map<String, Integer> partitionsByTopic, int replicationFactor)
            throws InterruptedException {
        try {
            Map<String, TopicDescription> descriptions =
                    admin.describeTopics(partitionsByTopic.keySet()).allTopicNames().get(30, TimeUnit.SECONDS);
            for (TopicDescription description : descriptions.values()) {
                for (TopicPartitionInfo partition : description.partitions()) {
                    if (partition.leader() == null || partition.isr().size() < replicationFactor) {
                        return false;
                    }
                }
            }
            return true;
        } catch (ExecutionException | TimeoutException e) {
            return false; // not known everywhere yet: ask again
        }
    }
}
