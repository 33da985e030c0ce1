package io.varve.it.replication;

import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.it.RawClient;
import io.varve.it.SharedBroker;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The leader's answers to replication requests on the wire: a Fetch naming a broker that is no replica is refused,
 * epochs newer than the leader's are UNKNOWN_LEADER_EPOCH, and OffsetsForLeaderEpoch says where an epoch ends.
 */
class ReplicaRequestsIT {
    @RegisterExtension
    static final SharedBroker shared = new SharedBroker();

    @Test
    void aFetchFromABrokerThatIsNoReplicaIsRefusedWithNotLeaderOrFollower() throws Exception {
        String topic = uniqueTopic("not-a-replica");
        Uuid id = createTopic(shared.admin(), topic, 1);
        FetchResponseData.PartitionData answer = fetch(id, 7, -1, 0);
        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
    }

    @Test
    void aFetchWithALeaderEpochNewerThanTheLeadersIsUnknownLeaderEpoch() throws Exception {
        String topic = uniqueTopic("future-epoch");
        Uuid id = createTopic(shared.admin(), topic, 1);
        FetchResponseData.PartitionData answer = fetch(id, -1, 5, 0);
        assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.UNKNOWN_LEADER_EPOCH);
    }

    @Test
    void offsetsForLeaderEpochAnswersWhereTheEpochEndsAndChecksTheCurrentEpoch() throws Exception {
        String topic = uniqueTopic("epoch-end");
        createTopic(shared.admin(), topic, 1);
        try (KafkaProducer<byte[], byte[]> producer = shared.broker().producer(Map.of())) {
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, ("v" + i).getBytes(UTF_8)))
                        .get(30, TimeUnit.SECONDS);
            }
        }
        OffsetForLeaderEpochResponseData.EpochEndOffset latest = offsetsForLeaderEpoch(topic, 0, 0);
        assertThat(Errors.forCode(latest.errorCode())).isEqualTo(Errors.NONE);
        assertThat(latest.leaderEpoch()).isEqualTo(0);
        assertThat(latest.endOffset()).isEqualTo(5);
        OffsetForLeaderEpochResponseData.EpochEndOffset future = offsetsForLeaderEpoch(topic, 3, 0);
        assertThat(Errors.forCode(future.errorCode())).isEqualTo(Errors.UNKNOWN_LEADER_EPOCH);
    }

    private static FetchResponseData.PartitionData fetch(Uuid topicId, int replicaId, int currentEpoch, long offset)
            throws Exception {
        FetchRequestData request = new FetchRequestData()
                .setReplicaId(-1)
                .setReplicaState(new FetchRequestData.ReplicaState()
                        .setReplicaId(replicaId)
                        .setReplicaEpoch(-1))
                .setMaxWaitMs(0)
                .setMinBytes(1)
                .setMaxBytes(1 << 20)
                .setSessionId(0)
                .setSessionEpoch(-1);
        request.topics()
                .add(new FetchRequestData.FetchTopic()
                        .setTopicId(topicId)
                        .setPartitions(java.util.List.of(new FetchRequestData.FetchPartition()
                                .setPartition(0)
                                .setCurrentLeaderEpoch(currentEpoch)
                                .setFetchOffset(offset)
                                .setLastFetchedEpoch(-1)
                                .setLogStartOffset(-1)
                                .setPartitionMaxBytes(1 << 20))));
        try (RawClient client = new RawClient(shared.broker().port())) {
            FetchResponseData response = client.send(request, (short) 17);
            return response.responses().get(0).partitions().get(0);
        }
    }

    private static OffsetForLeaderEpochResponseData.EpochEndOffset offsetsForLeaderEpoch(
            String topic, int currentEpoch, int epoch) throws Exception {
        OffsetForLeaderEpochRequestData request = new OffsetForLeaderEpochRequestData().setReplicaId(-1);
        OffsetForLeaderEpochRequestData.OffsetForLeaderTopic t =
                new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic(topic);
        t.partitions()
                .add(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition()
                        .setPartition(0)
                        .setCurrentLeaderEpoch(currentEpoch)
                        .setLeaderEpoch(epoch));
        request.topics().add(t);
        try (RawClient client = new RawClient(shared.broker().port())) {
            OffsetForLeaderEpochResponseData response = client.send(request, (short) 4);
            return response.topics().iterator().next().partitions().get(0);
        }
    }
}
