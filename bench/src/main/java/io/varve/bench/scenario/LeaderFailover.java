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
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Leader failover as a producer sees it: one idempotent {@code acks=all} producer sends 1 KiB records one at a time
 * (each waits for its acknowledgement) to a partition whose leader is not the active controller; that leader is
 * SIGKILLed; the figure is the longest window without an acknowledged record from the signal on (the first window
 * ends at the first acknowledgement after the signal, which the surviving replicas' new leader gave). The producer's
 * settings are the same for both brokers: short request timeout and back-offs, so the client is not what is measured.
 */
final class LeaderFailover {

    static final String DESCRIPTION = "leader failover: SIGKILL of a partition leader that is not the active controller "
            + "while one idempotent acks=all producer sends 1 KiB records one at a time to that partition "
            + "(request.timeout.ms=1000, retry and reconnect back-offs 10..100 ms); the longest window without an "
            + "acknowledgement from the signal on";
    private static final Duration STEADY_BEFORE = Duration.ofSeconds(2);
    private static final Duration STEADY_AFTER = Duration.ofSeconds(3);
    private static final Duration GIVE_UP_AFTER = Duration.ofSeconds(90);

    private LeaderFailover() {
    }

    /** Returns the failover time in milliseconds. The killed node stays down. */
    static double measure(RunningCluster cluster, String topic) throws Exception {
        int partition;
        int leader;
        try (Admin admin = ClusterTopics.admin(cluster)) {
            int controller = admin.describeMetadataQuorum().quorumInfo().get(30, TimeUnit.SECONDS).leaderId();
            TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(30, TimeUnit.SECONDS).get(topic);
            TopicPartitionInfo chosen = null;
            for (TopicPartitionInfo info : description.partitions()) {
                if (info.leader() != null && info.leader().id() != controller
                        && info.isr().size() == info.replicas().size()) {
                    chosen = info;
                    break;
                }
            }
            if (chosen == null) {
                throw new IOException("no partition of " + topic + " with a whole ISR is led by a node other than the "
                        + "active controller " + controller);
            }
            partition = chosen.partition();
            leader = chosen.leader().id();
        }
        byte[] value = new byte[1024];
        List<Long> ackNanos = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps(cluster))) {
            long steadyUntil = System.nanoTime() + STEADY_BEFORE.toNanos();
            while (System.nanoTime() < steadyUntil) {
                producer.send(new ProducerRecord<>(topic, partition, null, value)).get(30, TimeUnit.SECONDS);
            }
            cluster.kill(leader);
            long signalNanos = System.nanoTime();
            long giveUpNanos = signalNanos + GIVE_UP_AFTER.toNanos();
            Long firstAck = null;
            while (System.nanoTime() < giveUpNanos) {
                try {
                    producer.send(new ProducerRecord<>(topic, partition, null, value)).get(
                            GIVE_UP_AFTER.toMillis(), TimeUnit.MILLISECONDS);
                    long now = System.nanoTime();
                    ackNanos.add(now);
                    if (firstAck == null) {
                        firstAck = now;
                    }
                    if (now - firstAck >= STEADY_AFTER.toNanos()) {
                        break;
                    }
                } catch (ExecutionException | TimeoutException e) {
                    // not acknowledged: the window goes on; the producer retries the next record itself
                }
            }
            if (firstAck == null) {
                throw new IOException("no acknowledged produce within " + GIVE_UP_AFTER.toSeconds()
                        + " s of killing the leader of partition " + partition + " (node " + leader + ")");
            }
            long longest = firstAck - signalNanos;
            for (int i = 1; i < ackNanos.size(); i++) {
                longest = Math.max(longest, ackNanos.get(i) - ackNanos.get(i - 1));
            }
            return longest / 1e6;
        }
    }

    private static Properties producerProps(RunningCluster cluster) {
        Properties props = new Properties();
        props.putAll(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap(),
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
                ProducerConfig.LINGER_MS_CONFIG, "0",
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "1000",
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(GIVE_UP_AFTER.toMillis()),
                ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "10",
                ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "100",
                ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, "10",
                ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "100"));
        props.put(ProducerConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, "500");
        props.put(ProducerConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, "1000");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "varve-bench-failover");
        return props;
    }
}
