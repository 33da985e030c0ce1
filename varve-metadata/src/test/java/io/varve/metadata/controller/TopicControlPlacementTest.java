package io.varve.metadata.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.BrokerRegistrationChangeRecord;
import io.varve.metadata.record.Endpoint;
import io.varve.metadata.record.PartitionRecord;
import io.varve.metadata.record.RegisterBrokerRecord;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** Where TopicControl puts replicas in a cluster whose brokers are fenced, unfenced and racked. */
class TopicControlPlacementTest {

    private final AtomicLong nextId = new AtomicLong(1);
    private final TopicControl control = new TopicControl(
            new ControllerConfig(1, (short) 1),
            new RackAwareReplicaPlacer(),
            () -> new Uuid(0, nextId.getAndIncrement()));

    /** Brokers 1..racks.length on the given racks, all unfenced but those listed in {@code fenced}. */
    private static MetadataImage cluster(String[] racks, int... fenced) {
        MetadataDelta delta = new MetadataDelta(MetadataImage.EMPTY);
        for (int i = 0; i < racks.length; i++) {
            int id = i + 1;
            delta.replay(new RegisterBrokerRecord(
                    id,
                    Uuid.randomUuid(),
                    id,
                    List.of(new Endpoint("PLAINTEXT", "b" + id, 9092, "PLAINTEXT")),
                    racks[i],
                    Map.of(),
                    true,
                    false));
            if (java.util.Arrays.stream(fenced).noneMatch(f -> f == id)) {
                delta.replay(BrokerRegistrationChangeRecord.unfence(id, id));
            }
        }
        return delta.apply(racks.length * 2L);
    }

    private ControllerResult<List<CreateTopicResult>> create(MetadataImage image, CreateTopicRequest request) {
        return control.createTopics(image, List.of(request), false);
    }

    @Test
    void replicasGoOnlyToUnfencedBrokersOnDistinctRacks() {
        MetadataImage image = cluster(new String[] {"a", "a", "b", "b", "c"}, 2, 4);

        ControllerResult<List<CreateTopicResult>> result =
                create(image, new CreateTopicRequest("t", 6, (short) 3, Map.of(), Map.of()));

        assertThat(result.response().get(0).error()).isEqualTo(Errors.NONE);
        assertThat(result.records())
                .filteredOn(PartitionRecord.class::isInstance)
                .hasSize(6)
                .allSatisfy(record -> {
                    PartitionRecord partition = (PartitionRecord) record;
                    assertThat(partition.replicas()).containsExactlyInAnyOrder(1, 3, 5);
                    assertThat(partition.isr()).containsExactly(partition.replicas());
                    assertThat(partition.leader()).isEqualTo(partition.replicas()[0]);
                });
    }

    @Test
    void aReplicationFactorAboveTheUnfencedBrokersIsAnInvalidReplicationFactor() {
        MetadataImage image = cluster(new String[] {null, null, null}, 3);

        CreateTopicResult result = create(image, new CreateTopicRequest("t", 1, (short) 3, Map.of(), Map.of()))
                .response()
                .get(0);

        assertThat(result.error()).isEqualTo(Errors.INVALID_REPLICATION_FACTOR);
        assertThat(result.errorMessage()).contains("only 2 broker(s)");
    }

    @Test
    void withEveryBrokerFencedNothingCanBePlaced() {
        CreateTopicResult result = create(cluster(new String[] {null}, 1), CreateTopicRequest.withDefaults("t"))
                .response()
                .get(0);

        assertThat(result.error()).isEqualTo(Errors.INVALID_REPLICATION_FACTOR);
        assertThat(result.errorMessage()).isEqualTo("All brokers are currently fenced.");
    }

    @Test
    void aManualAssignmentKeepsFencedReplicasOutOfTheIsrAndNeedsOneUnfenced() {
        MetadataImage image = cluster(new String[] {null, null, null}, 1);

        ControllerResult<List<CreateTopicResult>> ok =
                create(image, new CreateTopicRequest("t", -1, (short) -1, Map.of(0, List.of(1, 2, 3)), Map.of()));
        CreateTopicResult allFenced = create(
                        image, new CreateTopicRequest("u", -1, (short) -1, Map.of(0, List.of(1)), Map.of()))
                .response()
                .get(0);

        PartitionRecord partition = (PartitionRecord) ok.records().get(1);
        assertThat(partition.replicas()).containsExactly(1, 2, 3);
        assertThat(partition.isr()).containsExactly(2, 3);
        assertThat(partition.leader()).isEqualTo(2);
        assertThat(allFenced.error()).isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
    }
}
