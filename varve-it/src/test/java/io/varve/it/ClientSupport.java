package io.varve.it;

import static org.assertj.core.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.AuthorizationException;

/** Helpers over kafka-clients shared by the integration tests: unique topic names, topic creation, reading a log to its end. */
public final class ClientSupport {
    public static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final AtomicInteger TOPIC_SEQUENCE = new AtomicInteger();

    private ClientSupport() {}

    /** A topic name no other test of this JVM uses. */
    public static String uniqueTopic(String prefix) {
        return prefix + "-" + TOPIC_SEQUENCE.incrementAndGet();
    }

    /**
     * Creates a topic with replication factor 1 and returns its id once every partition serves requests. A node answers
     * CreateTopics when the metadata commits and creates the logs a moment later (as Kafka does; until then the
     * partition answers the retriable NOT_LEADER_OR_FOLLOWER), so the wait is a ListOffsets, which the Admin retries:
     * tests that send raw requests next never meet that moment.
     */
    public static Uuid createTopic(Admin admin, String name, int partitions, Map<String, String> configs)
            throws Exception {
        CreateTopicsResult result =
                admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs)));
        result.all().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        partitions(name, partitions).forEach(tp -> latest.put(tp, OffsetSpec.latest()));
        try {
            admin.listOffsets(latest).all().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            // a principal allowed to create but not to describe cannot wait this way: it gets the topic as created
            if (!(e.getCause() instanceof AuthorizationException)) {
                throw e;
            }
        }
        return result.topicId(name).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    public static Uuid createTopic(Admin admin, String name, int partitions) throws Exception {
        return createTopic(admin, name, partitions, Map.of());
    }

    public static List<TopicPartition> partitions(String topic, int count) {
        return IntStream.range(0, count)
                .mapToObj(p -> new TopicPartition(topic, p))
                .toList();
    }

    /** Every record of partitions 0..partitions-1 from the start of the log to its end offset at the time of the call. */
    public static List<ConsumerRecord<byte[], byte[]>> readAll(TestBroker broker, String topic, int partitions) {
        try (KafkaConsumer<byte[], byte[]> consumer = broker.consumer(Map.of())) {
            return readAll(consumer, topic, partitions);
        }
    }

    /** Like {@link #readAll(TestBroker, String, int)} with a consumer the caller owns (no group: assign and seek). */
    public static List<ConsumerRecord<byte[], byte[]>> readAll(
            Consumer<byte[], byte[]> consumer, String topic, int partitions) {
        List<TopicPartition> tps = partitions(topic, partitions);
        consumer.assign(tps);
        consumer.seekToBeginning(tps);
        Map<TopicPartition, Long> endOffsets = consumer.endOffsets(tps, TIMEOUT);
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        long deadlineNanos = System.nanoTime() + TIMEOUT.toNanos();
        while (!reachedEnd(consumer, endOffsets)) {
            if (System.nanoTime() > deadlineNanos) {
                fail("Read " + records.size() + " records of " + topic + " but did not reach end offsets " + endOffsets
                        + " within " + TIMEOUT);
            }
            consumer.poll(Duration.ofMillis(200)).forEach(records::add);
        }
        return records;
    }

    private static boolean reachedEnd(Consumer<byte[], byte[]> consumer, Map<TopicPartition, Long> endOffsets) {
        for (Map.Entry<TopicPartition, Long> e : endOffsets.entrySet()) {
            if (consumer.position(e.getKey(), TIMEOUT) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** The records of one partition, in the order read. */
    public static List<ConsumerRecord<byte[], byte[]>> ofPartition(
            List<ConsumerRecord<byte[], byte[]>> records, int partition) {
        return records.stream().filter(r -> r.partition() == partition).toList();
    }
}
