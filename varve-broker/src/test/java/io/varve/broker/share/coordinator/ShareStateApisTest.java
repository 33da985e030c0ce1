package io.varve.broker.share.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.group.CoordinatorTopic;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.metadata.MetadataSnapshot.PartitionInfo;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ReadShareGroupStateRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateResponseData;
import org.apache.kafka.common.message.WriteShareGroupStateRequestData;
import org.apache.kafka.common.message.WriteShareGroupStateResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** The state APIs' answers that need no loaded shard: the coordinator checks in front of it. */
class ShareStateApisTest {
    private static final int THIS_NODE = 1;
    private static final Uuid DATA_TOPIC = Uuid.randomUuid();

    private final MetadataCache cache = new MetadataCache(THIS_NODE, "cluster");

    /** {@code stateLeader}: the leader of the one state partition (-1: none). */
    private ShareStateApis apis(int stateLeader) {
        Map<String, TopicInfo> byName = new HashMap<>();
        Map<Uuid, TopicInfo> byId = new HashMap<>();
        TopicInfo data = new TopicInfo(
                "jobs", DATA_TOPIC, Map.of(0, new PartitionInfo(0, 2, 3, new int[] {2}, new int[] {2}, 0)), Map.of());
        TopicInfo state = new TopicInfo(
                "__share_group_state",
                Uuid.randomUuid(),
                Map.of(0, new PartitionInfo(0, stateLeader, 1, new int[] {1, 2}, new int[] {1, 2}, 0)),
                Map.of());
        for (TopicInfo t : List.of(data, state)) {
            byName.put(t.name(), t);
            byId.put(t.id(), t);
        }
        cache.update(new MetadataSnapshot(1, byName, byId, List.of(), Map.of(), Map.of()));
        CoordinatorTopic topic = new CoordinatorTopic(
                "__share_group_state", THIS_NODE, 1, (short) 1, "rf", 0, Map.of(), cache, null, null);
        return new ShareStateApis(new ShareCoordinatorService(topic, null, THIS_NODE), cache);
    }

    private static ReadShareGroupStateRequestData read(Uuid topicId, int partition) {
        ReadShareGroupStateRequestData r = new ReadShareGroupStateRequestData().setGroupId("g");
        r.topics()
                .add(new ReadShareGroupStateRequestData.ReadStateData()
                        .setTopicId(topicId)
                        .setPartitions(List.of(new ReadShareGroupStateRequestData.PartitionData()
                                .setPartition(partition)
                                .setLeaderEpoch(3))));
        return r;
    }

    private static Errors errorOf(ReadShareGroupStateResponseData r) {
        return Errors.forCode(r.results().get(0).partitions().get(0).errorCode());
    }

    @Test
    void aKeyWhoseStatePartitionAnotherNodeLeadsIsNotCoordinator() throws Exception {
        assertThat(errorOf(apis(2).read(read(DATA_TOPIC, 0)).get(5, TimeUnit.SECONDS)))
                .isEqualTo(Errors.NOT_COORDINATOR);
    }

    @Test
    void aStatePartitionWithoutALeaderIsCoordinatorNotAvailable() throws Exception {
        assertThat(errorOf(apis(-1).read(read(DATA_TOPIC, 0)).get(5, TimeUnit.SECONDS)))
                .isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
    }

    @Test
    void anUnknownTopicOrPartitionAndANegativePartitionGetKafkasErrors() throws Exception {
        ShareStateApis apis = apis(THIS_NODE);
        assertThat(errorOf(apis.read(read(Uuid.randomUuid(), 0)).get(5, TimeUnit.SECONDS)))
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(errorOf(apis.read(read(DATA_TOPIC, 7)).get(5, TimeUnit.SECONDS)))
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(errorOf(apis.read(read(DATA_TOPIC, -1)).get(5, TimeUnit.SECONDS)))
                .isEqualTo(Errors.INVALID_REQUEST);
    }

    @Test
    void aWriteWithAnUnknownDeliveryStateIsAnInvalidRequest() throws Exception {
        WriteShareGroupStateRequestData w = new WriteShareGroupStateRequestData().setGroupId("g");
        w.topics()
                .add(new WriteShareGroupStateRequestData.WriteStateData()
                        .setTopicId(DATA_TOPIC)
                        .setPartitions(List.of(new WriteShareGroupStateRequestData.PartitionData()
                                .setPartition(0)
                                .setStartOffset(0)
                                .setStateBatches(List.of(new WriteShareGroupStateRequestData.StateBatch()
                                        .setFirstOffset(0)
                                        .setLastOffset(3)
                                        .setDeliveryState((byte) 1) // ACQUIRED is never persisted
                                        .setDeliveryCount((short) 1))))));
        WriteShareGroupStateResponseData r = apis(THIS_NODE).write(w).get(5, TimeUnit.SECONDS);
        assertThat(r.results().get(0).partitions().get(0).errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
    }
}
