package io.varve.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.TopicImage;
import io.varve.metadata.record.Endpoint;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.PartitionRecord;
import io.varve.metadata.record.RegisterBrokerRecord;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class TopicControlCreatePartitionsTest {

    private final AtomicLong nextId = new AtomicLong(1);
    private final TopicControl control = new TopicControl(
            new ControllerConfig(1, (short) 1),
            new RackAwareReplicaPlacer(),
            () -> new Uuid(0, nextId.getAndIncrement()));

    /** Brokers 1..brokers and topic "t" with the given partitions and replication factor. */
    private MetadataImage imageWithTopic(int brokers, int partitions, int replicationFactor) {
        MetadataDelta delta = new MetadataDelta(MetadataImage.EMPTY);
        for (int id = 1; id <= brokers; id++) {
            delta.replay(new RegisterBrokerRecord(
                    id,
                    Uuid.randomUuid(),
                    List.of(new Endpoint("PLAINTEXT", "localhost", 9000 + id, "PLAINTEXT")),
                    null));
        }
        MetadataImage image = delta.apply(brokers - 1);
        List<MetadataRecord> records = control.createTopics(
                        image,
                        List.of(new CreateTopicRequest("t", partitions, (short) replicationFactor, Map.of(), Map.of())),
                        false)
                .records();
        return apply(image, records);
    }

    private static MetadataImage apply(MetadataImage image, List<MetadataRecord> records) {
        MetadataDelta delta = new MetadataDelta(image);
        records.forEach(delta::replay);
        return delta.apply(image.offset() + records.size());
    }

    private CreatePartitionsResult createOne(MetadataImage image, CreatePartitionsRequest request) {
        return control.createPartitions(image, List.of(request)).response().get(0);
    }

    @Test
    void newPartitionsFollowTheExistingOnesWithTheTopicsReplicationFactor() {
        MetadataImage image = imageWithTopic(3, 2, 2);

        ControllerResult<List<CreatePartitionsResult>> result =
                control.createPartitions(image, List.of(CreatePartitionsRequest.increaseTo("t", 5)));
        TopicImage topic = apply(image, result.records()).topics().getTopic("t");

        assertThat(result.response()).containsExactly(new CreatePartitionsResult("t", Errors.NONE, null));
        assertThat(topic.numPartitions()).isEqualTo(5);
        assertThat(result.records())
                .extracting(r -> ((PartitionRecord) r).partitionId())
                .containsExactly(2, 3, 4);
        for (int p = 2; p < 5; p++) {
            assertThat(topic.partition(p).replicas()).hasSize(2).doesNotHaveDuplicates();
            assertThat(topic.partition(p).leader()).isEqualTo(topic.partition(p).replicas()[0]);
            assertThat(topic.partition(p).isr())
                    .containsExactly(topic.partition(p).replicas());
        }
    }

    @Test
    void manualAssignmentsAreUsedAsGiven() {
        MetadataImage image = imageWithTopic(3, 1, 2);

        ControllerResult<List<CreatePartitionsResult>> result = control.createPartitions(
                image, List.of(new CreatePartitionsRequest("t", 3, List.of(List.of(3, 1), List.of(2, 3)))));

        assertThat(result.response().get(0).error()).isEqualTo(Errors.NONE);
        assertThat(result.records())
                .extracting(r -> ((PartitionRecord) r).replicas())
                .containsExactly(new int[] {3, 1}, new int[] {2, 3});
    }

    @Test
    void aCountNotAboveTheCurrentOneIsInvalidPartitions() {
        MetadataImage image = imageWithTopic(1, 3, 1);

        assertThat(createOne(image, CreatePartitionsRequest.increaseTo("t", 2)))
                .isEqualTo(new CreatePartitionsResult(
                        "t",
                        Errors.INVALID_PARTITIONS,
                        "Topic currently has 3 partitions, which is higher than the requested 2."));
        assertThat(createOne(image, CreatePartitionsRequest.increaseTo("t", 3)))
                .isEqualTo(new CreatePartitionsResult(
                        "t", Errors.INVALID_PARTITIONS, "Topic already has 3 partition(s)."));
    }

    @Test
    void aMissingTopicIsUnknownTopicOrPartition() {
        assertThat(createOne(imageWithTopic(1, 1, 1), CreatePartitionsRequest.increaseTo("nope", 2))
                        .error())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }

    @Test
    void badAssignmentsAreInvalidReplicaAssignment() {
        MetadataImage image = imageWithTopic(2, 1, 1);

        assertThat(createOne(image, new CreatePartitionsRequest("t", 3, List.of(List.of(1))))
                        .message())
                .isEqualTo("Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified.");
        assertThat(createOne(image, new CreatePartitionsRequest("t", 2, List.of(List.of(9))))
                        .error())
                .isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
        assertThat(createOne(image, new CreatePartitionsRequest("t", 2, List.of(List.of(1, 2))))
                        .message())
                .contains("not consistent with previous partitions, which have 1 replica(s)");
        assertThat(createOne(image, new CreatePartitionsRequest("t", 2, List.of(List.of())))
                        .error())
                .isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
    }

    @Test
    void aTopicNamedTwiceIsInvalidRequestForBoth() {
        ControllerResult<List<CreatePartitionsResult>> result = control.createPartitions(
                imageWithTopic(1, 1, 1),
                List.of(CreatePartitionsRequest.increaseTo("t", 2), CreatePartitionsRequest.increaseTo("t", 3)));

        assertThat(result.response())
                .extracting(CreatePartitionsResult::error)
                .containsExactly(Errors.INVALID_REQUEST, Errors.INVALID_REQUEST);
        assertThat(result.records()).isEmpty();
    }
}
