package io.varve.it.admin;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.ofPartition;
import static io.varve.it.ClientSupport.readAll;
import static io.varve.it.ClientSupport.uniqueTopic;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.it.SharedBroker;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.CreatePartitionsOptions;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** CreatePartitions and DescribeLogDirs through Admin, as kafka-topics.sh --alter and kafka-log-dirs.sh use them. */
class PartitionsAndLogDirsIT {

    @RegisterExtension
    static final SharedBroker shared = new SharedBroker();

    private static KafkaFuture<Void> increaseTo(String topic, NewPartitions partitions, boolean validateOnly) {
        return shared.admin()
                .createPartitions(Map.of(topic, partitions), new CreatePartitionsOptions().validateOnly(validateOnly))
                .all();
    }

    private static int partitionCount(String topic) throws Exception {
        TopicDescription description = shared.admin()
                .describeTopics(List.of(topic))
                .allTopicNames()
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                .get(topic);
        return description.partitions().size();
    }

    @Test
    void addedPartitionsAreDescribedAndTakeRecords() throws Exception {
        String topic = uniqueTopic("grown");
        createTopic(shared.admin(), topic, 1);

        increaseTo(topic, NewPartitions.increaseTo(3), false).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

        assertThat(partitionCount(topic)).isEqualTo(3);
        try (KafkaProducer<byte[], byte[]> producer = shared.broker().producer(Map.of())) {
            assertThat(producer.send(new ProducerRecord<>(topic, 2, null, "to-new".getBytes()))
                            .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                            .offset())
                    .isZero();
        }
        assertThat(ofPartition(readAll(shared.broker(), topic, 3), 2)).hasSize(1);
    }

    @Test
    void decreasingOrKeepingTheCountIsInvalidPartitions() throws Exception {
        String topic = uniqueTopic("shrink");
        createTopic(shared.admin(), topic, 3);

        assertThat(increaseTo(topic, NewPartitions.increaseTo(2), false))
                .failsWithin(TIMEOUT)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(InvalidPartitionsException.class)
                .withMessageContaining("Topic currently has 3 partitions, which is higher than the requested 2.");
        assertThat(increaseTo(topic, NewPartitions.increaseTo(3), false))
                .failsWithin(TIMEOUT)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(InvalidPartitionsException.class);
        assertThat(increaseTo(uniqueTopic("missing"), NewPartitions.increaseTo(3), false))
                .failsWithin(TIMEOUT)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(UnknownTopicOrPartitionException.class);
    }

    @Test
    void validateOnlyAndManualAssignmentsFollowKafka() throws Exception {
        String topic = uniqueTopic("assigned");
        createTopic(shared.admin(), topic, 1);

        increaseTo(topic, NewPartitions.increaseTo(4), true).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(partitionCount(topic)).isEqualTo(1);

        assertThat(increaseTo(topic, NewPartitions.increaseTo(2, List.of(List.of(7))), false))
                .failsWithin(TIMEOUT)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(InvalidReplicaAssignmentException.class);
        increaseTo(topic, NewPartitions.increaseTo(2, List.of(List.of(1))), false)
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(partitionCount(topic)).isEqualTo(2);
    }

    @Test
    void logDirsListEveryPartitionWithItsSizeAndTheVolumesSpace() throws Exception {
        String topic = uniqueTopic("sized");
        createTopic(shared.admin(), topic, 2);
        try (KafkaProducer<byte[], byte[]> producer = shared.broker().producer(Map.of())) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, new byte[1000]));
            }
            producer.flush();
        }

        Map<String, LogDirDescription> dirs = shared.admin()
                .describeLogDirs(List.of(1))
                .allDescriptions()
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                .get(1);

        assertThat(dirs).hasSize(1);
        LogDirDescription dir = dirs.values().iterator().next();
        assertThat(dir.error()).isNull();
        assertThat(dir.totalBytes().orElseThrow()).isPositive();
        assertThat(dir.usableBytes().orElseThrow()).isPositive();
        ReplicaInfo written = dir.replicaInfos().get(new TopicPartition(topic, 0));
        ReplicaInfo empty = dir.replicaInfos().get(new TopicPartition(topic, 1));
        assertThat(written.size()).isGreaterThanOrEqualTo(10_000);
        assertThat(written.offsetLag()).isZero();
        assertThat(written.isFuture()).isFalse();
        assertThat(empty.size()).isZero();
    }
}
