package io.varve.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.ConfigRecord;
import io.varve.metadata.record.Endpoint;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.PartitionRecord;
import io.varve.metadata.record.RegisterBrokerRecord;
import io.varve.metadata.record.RemoveTopicRecord;
import io.varve.metadata.record.TopicRecord;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TopicControlTest {

    private final AtomicLong nextId = new AtomicLong(1);
    private final TopicControl control = new TopicControl(
            new ControllerConfig(3, (short) 1),
            new RackAwareReplicaPlacer(),
            () -> new Uuid(0, nextId.getAndIncrement()));

    private static MetadataImage withBrokers(int... brokerIds) {
        MetadataDelta delta = new MetadataDelta(MetadataImage.EMPTY);
        for (int id : brokerIds) {
            delta.replay(new RegisterBrokerRecord(
                    id,
                    Uuid.randomUuid(),
                    List.of(new Endpoint("PLAINTEXT", "localhost", 9000 + id, "PLAINTEXT")),
                    null));
        }
        return delta.apply(brokerIds.length - 1);
    }

    private static MetadataImage apply(MetadataImage image, List<MetadataRecord> records) {
        MetadataDelta delta = new MetadataDelta(image);
        records.forEach(delta::replay);
        return delta.apply(image.offset() + records.size());
    }

    private CreateTopicResult createOne(MetadataImage image, CreateTopicRequest request) {
        return control.createTopics(image, List.of(request), false).response().get(0);
    }

    private static CreateTopicRequest topic(String name, int partitions, int replicationFactor) {
        return new CreateTopicRequest(name, partitions, (short) replicationFactor, Map.of(), Map.of());
    }

    @Test
    void defaultsComeFromTheControllerConfigAndSingleNodePlacesEveryReplicaOnIt() {
        ControllerResult<List<CreateTopicResult>> result =
                control.createTopics(withBrokers(1), List.of(CreateTopicRequest.withDefaults("orders")), false);

        CreateTopicResult created = result.response().get(0);
        assertThat(created.error()).isEqualTo(Errors.NONE);
        assertThat(created.numPartitions()).isEqualTo(3);
        assertThat(created.replicationFactor()).isEqualTo((short) 1);
        assertThat(created.topicId()).isNotEqualTo(Uuid.ZERO_UUID);
        assertThat(result.records()).hasSize(4);
        assertThat(result.records().get(0)).isEqualTo(new TopicRecord("orders", created.topicId()));
        assertThat(result.records().subList(1, 4)).allSatisfy(record -> {
            PartitionRecord partition = (PartitionRecord) record;
            assertThat(partition.replicas()).containsExactly(1);
            assertThat(partition.isr()).containsExactly(1);
            assertThat(partition.leader()).isEqualTo(1);
            assertThat(partition.leaderEpoch()).isZero();
        });
    }

    @Test
    void replicasAreChosenRoundRobinWithTheLeaderFirst() {
        ControllerResult<List<CreateTopicResult>> result =
                control.createTopics(withBrokers(1, 2, 3), List.of(topic("t", 3, 2)), false);

        assertThat(result.records().subList(1, 4))
                .extracting(r -> ((PartitionRecord) r).replicas())
                .containsExactly(new int[] {1, 2}, new int[] {2, 3}, new int[] {3, 1});
        assertThat(result.records().subList(1, 4))
                .extracting(r -> ((PartitionRecord) r).leader())
                .containsExactly(1, 2, 3);
    }

    @Test
    void configOverridesAreWrittenAndReported() {
        Map<String, String> configs = Map.of("retention.ms", "1000", "cleanup.policy", "compact");
        ControllerResult<List<CreateTopicResult>> result = control.createTopics(
                withBrokers(1), List.of(new CreateTopicRequest("t", 1, (short) 1, Map.of(), configs)), false);

        assertThat(result.response().get(0).configs()).isEqualTo(configs);
        assertThat(result.records()).filteredOn(ConfigRecord.class::isInstance).hasSize(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "..", "has space", "ümlaut", "a/b"})
    void illegalNamesAreInvalidTopic(String name) {
        CreateTopicResult result = createOne(withBrokers(1), topic(name, 1, 1));

        assertThat(result.error()).isEqualTo(Errors.INVALID_TOPIC_EXCEPTION);
        assertThat(result.errorMessage()).isNotBlank();
        assertThat(result.topicId()).isEqualTo(Uuid.ZERO_UUID);
        assertThat(result.numPartitions()).isEqualTo(-1);
    }

    @Test
    void nameLengthLimitIs249() {
        assertThat(createOne(withBrokers(1), topic("a".repeat(249), 1, 1)).error())
                .isEqualTo(Errors.NONE);
        assertThat(createOne(withBrokers(1), topic("a".repeat(250), 1, 1)).error())
                .isEqualTo(Errors.INVALID_TOPIC_EXCEPTION);
    }

    @Test
    void internalNamesMayBeCreated() {
        assertThat(createOne(withBrokers(1), topic("__consumer_offsets", 50, 1)).error())
                .isEqualTo(Errors.NONE);
    }

    @Test
    void existingNameIsTopicAlreadyExists() {
        MetadataImage image = withBrokers(1);
        image = apply(
                image,
                control.createTopics(image, List.of(topic("orders", 1, 1)), false)
                        .records());

        CreateTopicResult result = createOne(image, topic("orders", 1, 1));

        assertThat(result.error()).isEqualTo(Errors.TOPIC_ALREADY_EXISTS);
        assertThat(result.errorMessage()).isEqualTo("Topic 'orders' already exists.");
    }

    @Test
    void namesCollidingAfterReplacingDotsWithUnderscoresAreInvalidTopic() {
        MetadataImage image = withBrokers(1);
        image = apply(
                image,
                control.createTopics(image, List.of(topic("a.b", 1, 1)), false).records());

        CreateTopicResult result = createOne(image, topic("a_b", 1, 1));

        assertThat(result.error()).isEqualTo(Errors.INVALID_TOPIC_EXCEPTION);
        assertThat(result.errorMessage()).isEqualTo("Topic 'a_b' collides with existing topic: a.b");
    }

    @Test
    void laterTopicsOfOneRequestSeeEarlierOnes() {
        List<CreateTopicResult> results = control.createTopics(
                        withBrokers(1), List.of(topic("x.y", 1, 1), topic("x_y", 1, 1)), false)
                .response();

        assertThat(results)
                .extracting(CreateTopicResult::error)
                .containsExactly(Errors.NONE, Errors.INVALID_TOPIC_EXCEPTION);
    }

    @Test
    void duplicateNamesInOneRequestAreInvalidRequest() {
        ControllerResult<List<CreateTopicResult>> result = control.createTopics(
                withBrokers(1), List.of(topic("d", 1, 1), topic("d", 1, 1), topic("e", 1, 1)), false);

        assertThat(result.response())
                .extracting(CreateTopicResult::error)
                .containsExactly(Errors.INVALID_REQUEST, Errors.INVALID_REQUEST, Errors.NONE);
        assertThat(result.records()).filteredOn(TopicRecord.class::isInstance).hasSize(1);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -2, -100})
    void nonPositivePartitionCountsOtherThanMinusOneAreInvalidPartitions(int partitions) {
        assertThat(createOne(withBrokers(1), topic("t", partitions, 1)).error()).isEqualTo(Errors.INVALID_PARTITIONS);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -2, -100})
    void nonPositiveReplicationFactorsOtherThanMinusOneAreInvalid(int replicationFactor) {
        assertThat(createOne(withBrokers(1), topic("t", 1, replicationFactor)).error())
                .isEqualTo(Errors.INVALID_REPLICATION_FACTOR);
    }

    @Test
    void replicationFactorAboveRegisteredBrokersIsInvalid() {
        CreateTopicResult result = createOne(withBrokers(1, 2), topic("t", 1, 3));

        assertThat(result.error()).isEqualTo(Errors.INVALID_REPLICATION_FACTOR);
        assertThat(result.errorMessage()).contains("only 2 broker(s) are registered");
        assertThat(createOne(MetadataImage.EMPTY, CreateTopicRequest.withDefaults("t"))
                        .error())
                .isEqualTo(Errors.INVALID_REPLICATION_FACTOR);
    }

    @Test
    void aReplicationFactorUpToTheRegisteredBrokersIsPlacedAutomaticOrManual() {
        TopicControl control =
                new TopicControl(ControllerConfig.defaults(), new RackAwareReplicaPlacer(), Uuid::randomUuid);

        CreateTopicResult automatic = control.createTopics(withBrokers(1, 2, 3), List.of(topic("t", 1, 3)), false)
                .response()
                .get(0);
        CreateTopicResult manual = control.createTopics(
                        withBrokers(1, 2, 3),
                        List.of(new CreateTopicRequest("m", -1, (short) -1, Map.of(0, List.of(1, 2)), Map.of())),
                        false)
                .response()
                .get(0);

        assertThat(automatic.error()).isEqualTo(Errors.NONE);
        assertThat(manual.error()).isEqualTo(Errors.NONE);
    }

    @Test
    void assignmentsTogetherWithCountsAreInvalidRequest() {
        Map<Integer, List<Integer>> assignments = Map.of(0, List.of(1));

        assertThat(createOne(withBrokers(1), new CreateTopicRequest("t", 1, (short) -1, assignments, Map.of()))
                        .error())
                .isEqualTo(Errors.INVALID_REQUEST);
        assertThat(createOne(withBrokers(1), new CreateTopicRequest("t", -1, (short) 1, assignments, Map.of()))
                        .error())
                .isEqualTo(Errors.INVALID_REQUEST);
    }

    @Test
    void manualAssignmentIsUsedAsGiven() {
        ControllerResult<List<CreateTopicResult>> result = control.createTopics(
                withBrokers(1, 2, 3),
                List.of(new CreateTopicRequest(
                        "t", -1, (short) -1, Map.of(0, List.of(3, 1), 1, List.of(2, 3)), Map.of())),
                false);

        assertThat(result.response().get(0).numPartitions()).isEqualTo(2);
        assertThat(result.response().get(0).replicationFactor()).isEqualTo((short) 2);
        assertThat(result.records().subList(1, 3))
                .extracting(r -> ((PartitionRecord) r).replicas())
                .containsExactly(new int[] {3, 1}, new int[] {2, 3});
    }

    @Test
    void badManualAssignmentsAreInvalidReplicaAssignment() {
        MetadataImage image = withBrokers(1, 2);
        List<Map<Integer, List<Integer>>> bad = List.of(
                Map.of(1, List.of(1)), // does not start at 0
                Map.of(0, List.of()), // empty
                Map.of(0, List.of(1, 1)), // duplicate replica
                Map.of(0, List.of(7)), // unregistered broker
                Map.of(0, List.of(1), 1, List.of(1, 2)) // inconsistent replication factor
                );
        for (Map<Integer, List<Integer>> assignment : bad) {
            assertThat(createOne(image, new CreateTopicRequest("t", -1, (short) -1, assignment, Map.of()))
                            .error())
                    .as("%s", assignment)
                    .isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
        }
    }

    @Test
    void invalidConfigsAreInvalidConfigWithAMessage() {
        CreateTopicResult unknown = createOne(
                withBrokers(1), new CreateTopicRequest("t", 1, (short) 1, Map.of(), Map.of("no.such.config", "1")));
        CreateTopicResult invalid = createOne(
                withBrokers(1), new CreateTopicRequest("t", 1, (short) 1, Map.of(), Map.of("retention.ms", "soon")));

        assertThat(unknown.error()).isEqualTo(Errors.INVALID_CONFIG);
        assertThat(unknown.errorMessage()).contains("no.such.config");
        assertThat(invalid.error()).isEqualTo(Errors.INVALID_CONFIG);
        assertThat(invalid.errorMessage()).contains("retention.ms");
    }

    @Test
    void validateOnlyReportsSuccessWithoutRecordsOrId() {
        ControllerResult<List<CreateTopicResult>> result =
                control.createTopics(withBrokers(1), List.of(topic("t", 4, 1), topic("bad name", 1, 1)), true);

        assertThat(result.records()).isEmpty();
        assertThat(result.response().get(0).error()).isEqualTo(Errors.NONE);
        assertThat(result.response().get(0).numPartitions()).isEqualTo(4);
        assertThat(result.response().get(0).topicId()).isEqualTo(Uuid.ZERO_UUID);
        assertThat(result.response().get(1).error()).isEqualTo(Errors.INVALID_TOPIC_EXCEPTION);
    }

    @Test
    void deleteReportsEachNameAndIdAndRemovesEachTopicOnce() {
        MetadataImage image = withBrokers(1);
        ControllerResult<List<CreateTopicResult>> created =
                control.createTopics(image, List.of(topic("a", 1, 1), topic("b", 1, 1)), false);
        image = apply(image, created.records());
        Uuid idA = created.response().get(0).topicId();
        Uuid idB = created.response().get(1).topicId();
        Uuid unknownId = Uuid.randomUuid();

        ControllerResult<List<DeleteTopicResult>> result =
                control.deleteTopics(image, List.of("a", "missing"), List.of(idA, idB, unknownId, Uuid.ZERO_UUID));

        assertThat(result.response())
                .containsExactly(
                        new DeleteTopicResult("a", idA, Errors.NONE, null),
                        new DeleteTopicResult(
                                "missing",
                                Uuid.ZERO_UUID,
                                Errors.UNKNOWN_TOPIC_OR_PARTITION,
                                Errors.UNKNOWN_TOPIC_OR_PARTITION.message()),
                        new DeleteTopicResult("a", idA, Errors.NONE, null),
                        new DeleteTopicResult("b", idB, Errors.NONE, null),
                        new DeleteTopicResult(
                                null, unknownId, Errors.UNKNOWN_TOPIC_ID, Errors.UNKNOWN_TOPIC_ID.message()),
                        new DeleteTopicResult(null, Uuid.ZERO_UUID, Errors.INVALID_REQUEST, "Invalid topic id."));
        assertThat(result.records()).containsExactly(new RemoveTopicRecord(idA), new RemoveTopicRecord(idB));
    }

    @Test
    void duplicateNamesInADeleteAreInvalidRequest() {
        MetadataImage image = withBrokers(1);
        image = apply(
                image,
                control.createTopics(image, List.of(topic("a", 1, 1)), false).records());

        ControllerResult<List<DeleteTopicResult>> result = control.deleteTopics(image, List.of("a", "a"), List.of());

        assertThat(result.response())
                .extracting(DeleteTopicResult::error)
                .containsExactly(Errors.INVALID_REQUEST, Errors.INVALID_REQUEST);
        assertThat(result.records()).isEmpty();
    }
}
