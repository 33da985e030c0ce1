package io.varve.bench;

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

/** Creates benchmark topics with Kafka's Admin client and waits until every partition has a leader. */
public final class Topics {

    private static final Duration CREATE_TIMEOUT = Duration.ofMinutes(3);

    private Topics() {
    }

    /**
     * Creates each topic with its partition count (replication factor 1) and returns the milliseconds from
     * the request to the moment Metadata shows every partition of the broker with a leader.
     */
    public static long create(RunningBroker broker, Map<String, Integer> partitionsByTopic) throws IOException {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) CREATE_TIMEOUT.toMillis());
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) CREATE_TIMEOUT.toMillis());
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "varve-bench-admin");
        List<NewTopic> topics = new ArrayList<>();
        partitionsByTopic.forEach((name, partitions) -> topics.add(new NewTopic(name, partitions, (short) 1)));
        int before = partitionsNow(broker);
        int expected = before + partitionsByTopic.values().stream().mapToInt(Integer::intValue).sum();
        long startNanos = System.nanoTime();
        try (Admin admin = Admin.create(props)) {
            admin.createTopics(topics).all().get(CREATE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("creating " + partitionsByTopic + " on " + broker.kind().displayName() + " failed: "
                    + (e.getCause() != null ? e.getCause() : e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while creating topics", e);
        }
        broker.awaitMetadata(CREATE_TIMEOUT, s -> s.partitionsWithLeader() >= expected,
                "show " + expected + " partitions with a leader");
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    public static long create(RunningBroker broker, String topic, int partitions) throws IOException {
        return create(broker, Map.of(topic, partitions));
    }

    private static int partitionsNow(RunningBroker broker) throws IOException {
        return broker.probe().metadata().partitions();
    }
}
