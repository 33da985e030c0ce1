package io.varve.broker.api.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.protocol.ClientFrames;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.PartitionRecord;
import io.varve.metadata.record.TopicRecord;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData.Cursor;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData.TopicRequest;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class DescribeTopicPartitionsHandlerTest {

    private static final Uuid ID = new Uuid(3, 4);

    /** Topic "t" of three partitions; partition 1 offline with ISR empty, ELR [1, 2], last known ELR [3]. */
    private static MetadataImage image() {
        MetadataDelta delta = new MetadataDelta(MetadataImage.EMPTY);
        delta.replay(new TopicRecord("t", ID));
        delta.replay(new PartitionRecord(ID, 0, new int[] {1, 2, 3}, new int[] {1, 2}, 1, 4, 7));
        delta.replay(new PartitionRecord(
                ID, 1, new int[] {1, 2, 3}, new int[0], -1, 5, 8, new int[0], new int[0], new int[] {1, 2}, new int[] {3
                }));
        delta.replay(new PartitionRecord(ID, 2, new int[] {3}, new int[] {3}, 3, 0, 0));
        return delta.apply(10);
    }

    private static DescribeTopicPartitionsResponseData describe(DescribeTopicPartitionsRequestData data) {
        short version = 0;
        RequestContext request = new RequestContext(
                new RequestHeaderData()
                        .setRequestApiKey(ApiKeys.DESCRIBE_TOPIC_PARTITIONS.id)
                        .setRequestApiVersion(version)
                        .setClientId("admin"),
                ApiKeys.DESCRIBE_TOPIC_PARTITIONS,
                version,
                ClientFrames.asRequest(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, version, data),
                "PLAINTEXT",
                null,
                0);
        return (DescribeTopicPartitionsResponseData)
                new DescribeTopicPartitionsHandler(DescribeTopicPartitionsHandlerTest::image)
                        .handle(request)
                        .join();
    }

    @Test
    void partitionsCarryLeaderIsrElrAndLastKnownElr() {
        DescribeTopicPartitionsResponseData response = describe(new DescribeTopicPartitionsRequestData()
                .setTopics(List.of(new TopicRequest().setName("t"), new TopicRequest().setName("nope"))));

        assertThat(response.topics()).hasSize(2);
        assertThat(response.topics().find("nope").errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        DescribeTopicPartitionsResponsePartition offline =
                response.topics().find("t").partitions().get(1);
        assertThat(offline.leaderId()).isEqualTo(-1);
        assertThat(offline.isrNodes()).isEmpty();
        assertThat(offline.eligibleLeaderReplicas()).containsExactly(1, 2);
        assertThat(offline.lastKnownElr()).containsExactly(3);
        assertThat(response.topics().find("t").topicId()).isEqualTo(ID);
        assertThat(response.nextCursor()).isNull();
    }

    @Test
    void theResponsePartitionLimitCutsTheAnswerAndTheCursorResumesIt() {
        DescribeTopicPartitionsResponseData first =
                describe(new DescribeTopicPartitionsRequestData().setResponsePartitionLimit(2));
        assertThat(first.topics().find("t").partitions()).hasSize(2);
        assertThat(first.nextCursor().topicName()).isEqualTo("t");
        assertThat(first.nextCursor().partitionIndex()).isEqualTo(2);

        DescribeTopicPartitionsResponseData rest = describe(new DescribeTopicPartitionsRequestData()
                .setResponsePartitionLimit(2)
                .setCursor(new Cursor().setTopicName("t").setPartitionIndex(2)));

        assertThat(rest.topics().find("t").partitions())
                .extracting(DescribeTopicPartitionsResponsePartition::partitionIndex)
                .containsExactly(2);
        assertThat(rest.nextCursor()).isNull();
    }
}
