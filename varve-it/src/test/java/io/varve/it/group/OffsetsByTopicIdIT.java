package io.varve.it.group;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.it.RawClient;
import io.varve.it.SharedBroker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * OffsetCommit v10 and OffsetFetch v10 (KIP-848's follow-up) name topics by id only: the broker resolves the ids,
 * answers UNKNOWN_TOPIC_ID for one it does not know, answers with ids, and keeps the offsets where clients on older
 * versions (by name) and kafka-clients 4.4 find them.
 */
class OffsetsByTopicIdIT {
    private static final short V10 = 10;

    @RegisterExtension
    static final SharedBroker shared = new SharedBroker(GroupClients.brokerOverrides());

    @Test
    void apiVersionsAdvertisesOffsetCommitAndOffsetFetchUpToVersion10() throws Exception {
        try (RawClient client = new RawClient(shared.broker().port())) {
            ApiVersionsResponseData versions = client.send(new ApiVersionsRequestData(), (short) 3);
            assertThat(versions.apiKeys().find(ApiKeys.OFFSET_COMMIT.id).maxVersion())
                    .isEqualTo(V10);
            assertThat(versions.apiKeys().find(ApiKeys.OFFSET_FETCH.id).maxVersion())
                    .isEqualTo(V10);
        }
    }

    @Test
    void aVersion10CommitAndFetchNameTopicsByIdAndAnswerUnknownTopicIdForAnIdNoTopicHas() throws Exception {
        String topic = uniqueTopic("by-id");
        Uuid id = createTopic(shared.admin(), topic, 2);
        Uuid unknown = Uuid.randomUuid();
        String group = "by-id-raw";
        try (RawClient client = new RawClient(shared.broker().port())) {
            OffsetCommitRequestData commit = new OffsetCommitRequestData()
                    .setGroupId(group)
                    .setGenerationIdOrMemberEpoch(-1)
                    .setMemberId("");
            commit.topics()
                    .add(new OffsetCommitRequestTopic()
                            .setTopicId(id)
                            .setPartitions(List.of(commitOf(0, 7), commitOf(1, 9))));
            commit.topics()
                    .add(new OffsetCommitRequestTopic().setTopicId(unknown).setPartitions(List.of(commitOf(0, 3))));
            OffsetCommitResponseData committed = client.send(commit, V10);
            assertThat(committed.topics()).hasSize(2);
            assertThat(committed.topics())
                    .filteredOn(t -> t.topicId().equals(id))
                    .singleElement()
                    .satisfies(t -> assertThat(t.partitions())
                            .extracting(OffsetCommitResponsePartition::errorCode)
                            .containsExactly(Errors.NONE.code(), Errors.NONE.code()));
            assertThat(committed.topics())
                    .filteredOn(t -> t.topicId().equals(unknown))
                    .singleElement()
                    .satisfies(t -> assertThat(t.partitions())
                            .extracting(OffsetCommitResponsePartition::errorCode)
                            .containsExactly(Errors.UNKNOWN_TOPIC_ID.code()));

            // the partitions asked for by id
            OffsetFetchRequestGroup named = new OffsetFetchRequestGroup().setGroupId(group);
            named.topics().add(new OffsetFetchRequestTopics().setTopicId(id).setPartitionIndexes(List.of(0, 1)));
            named.topics()
                    .add(new OffsetFetchRequestTopics().setTopicId(unknown).setPartitionIndexes(List.of(0)));
            OffsetFetchResponseData fetched =
                    client.send(new OffsetFetchRequestData().setGroups(new ArrayList<>(List.of(named))), V10);
            OffsetFetchResponseData.OffsetFetchResponseGroup answer =
                    fetched.groups().get(0);
            assertThat(answer.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(offsetsOf(answer.topics(), id)).containsExactly(7L, 9L);
            assertThat(answer.topics())
                    .filteredOn(t -> t.topicId().equals(unknown))
                    .singleElement()
                    .satisfies(t -> assertThat(t.partitions())
                            .extracting(OffsetFetchResponsePartitions::errorCode)
                            .containsExactly(Errors.UNKNOWN_TOPIC_ID.code()));

            // all the group's offsets: named by id as well
            OffsetFetchResponseData all = client.send(
                    new OffsetFetchRequestData()
                            .setGroups(new ArrayList<>(List.of(new OffsetFetchRequestGroup()
                                    .setGroupId(group)
                                    .setTopics(null)))),
                    V10);
            assertThat(all.groups().get(0).topics())
                    .extracting(OffsetFetchResponseTopics::topicId)
                    .containsExactly(id);
            assertThat(offsetsOf(all.groups().get(0).topics(), id)).containsExactly(7L, 9L);

            // a client on version 9 finds the same offsets by name
            OffsetFetchRequestGroup byName = new OffsetFetchRequestGroup().setGroupId(group);
            byName.topics().add(new OffsetFetchRequestTopics().setName(topic).setPartitionIndexes(List.of(0, 1)));
            OffsetFetchResponseData v9 =
                    client.send(new OffsetFetchRequestData().setGroups(new ArrayList<>(List.of(byName))), (short) 9);
            assertThat(v9.groups().get(0).topics()).singleElement().satisfies(t -> {
                assertThat(t.name()).isEqualTo(topic);
                assertThat(t.partitions())
                        .extracting(OffsetFetchResponsePartitions::committedOffset)
                        .containsExactly(7L, 9L);
            });
        }
    }

    @Test
    void aKafkaClients44ConsumerCommitsAndReadsBackOffsetsTheAdminSeesByName() throws Exception {
        String topic = uniqueTopic("by-id-client");
        createTopic(shared.admin(), topic, 2);
        String group = "by-id-client";
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        try (KafkaConsumer<byte[], byte[]> consumer =
                shared.broker().consumer(Map.of(ConsumerConfig.GROUP_ID_CONFIG, group))) {
            consumer.assign(List.of(p0, p1));
            consumer.commitSync(Map.of(p0, new OffsetAndMetadata(4, "m0"), p1, new OffsetAndMetadata(6)), TIMEOUT);
            Map<TopicPartition, OffsetAndMetadata> back = consumer.committed(java.util.Set.of(p0, p1), TIMEOUT);
            assertThat(back.get(p0).offset()).isEqualTo(4);
            assertThat(back.get(p0).metadata()).isEqualTo("m0");
            assertThat(back.get(p1).offset()).isEqualTo(6);
        }
        Map<TopicPartition, OffsetAndMetadata> listed = shared.admin()
                .listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(listed).containsOnlyKeys(p0, p1);
        assertThat(listed.get(p1).offset()).isEqualTo(6);
    }

    private static OffsetCommitRequestPartition commitOf(int partition, long offset) {
        return new OffsetCommitRequestPartition().setPartitionIndex(partition).setCommittedOffset(offset);
    }

    private static List<Long> offsetsOf(List<OffsetFetchResponseTopics> topics, Uuid id) {
        return topics.stream()
                .filter(t -> t.topicId().equals(id))
                .flatMap(t -> t.partitions().stream())
                .sorted(java.util.Comparator.comparingInt(OffsetFetchResponsePartitions::partitionIndex))
                .map(OffsetFetchResponsePartitions::committedOffset)
                .toList();
    }
}
