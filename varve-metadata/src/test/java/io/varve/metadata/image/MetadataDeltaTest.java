package io.varve.metadata.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.metadata.record.ConfigRecord;
import io.varve.metadata.record.ConfigResourceType;
import io.varve.metadata.record.Endpoint;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.PartitionRecord;
import io.varve.metadata.record.ProducerIdsRecord;
import io.varve.metadata.record.RegisterBrokerRecord;
import io.varve.metadata.record.RemoveTopicRecord;
import io.varve.metadata.record.TopicRecord;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class MetadataDeltaTest {

    private static final Uuid ORDERS = Uuid.randomUuid();
    private static final Uuid PAYMENTS = Uuid.randomUuid();

    private static MetadataImage replay(MetadataImage base, long offset, MetadataRecord... records) {
        MetadataDelta delta = new MetadataDelta(base);
        for (MetadataRecord record : records) {
            delta.replay(record);
        }
        return delta.apply(offset);
    }

    private static PartitionRecord partition(Uuid topicId, int partitionId, int leader) {
        return new PartitionRecord(topicId, partitionId, new int[] {leader}, new int[] {leader}, leader, 0, 0);
    }

    private static MetadataImage ordersImage() {
        return replay(
                MetadataImage.EMPTY,
                3,
                new TopicRecord("orders", ORDERS),
                partition(ORDERS, 0, 1),
                partition(ORDERS, 1, 1),
                new ConfigRecord(ConfigResourceType.TOPIC, "orders", "retention.ms", "1000"));
    }

    @Test
    void createdTopicIsFoundByNameAndIdWithItsPartitionsAndConfigs() {
        MetadataImage image = ordersImage();

        assertThat(image.offset()).isEqualTo(3);
        TopicImage topic = image.topics().getTopic("orders");
        assertThat(topic).isSameAs(image.topics().getTopic(ORDERS));
        assertThat(topic.partitions()).containsOnlyKeys(0, 1);
        assertThat(topic.partition(1).leader()).isEqualTo(1);
        assertThat(image.topics().totalPartitions()).isEqualTo(2);
        assertThat(image.configs().topicConfigs("orders")).containsExactly(Map.entry("retention.ms", "1000"));
    }

    @Test
    void deltaCopiesOnlyThePartsItChangesAndReportsWhatChanged() {
        MetadataImage before = ordersImage();
        MetadataDelta delta = new MetadataDelta(before);
        delta.replay(new ProducerIdsRecord(1, 1000));
        MetadataImage after = delta.apply(4);

        assertThat(delta.topicsDelta()).isNull();
        assertThat(delta.configsDelta()).isNull();
        assertThat(delta.producerIdsDelta().nextProducerId()).isEqualTo(1000);
        assertThat(after.topics()).isSameAs(before.topics());
        assertThat(after.configs()).isSameAs(before.configs());
        assertThat(after.cluster()).isSameAs(before.cluster());
        assertThat(after.producerIds().nextProducerId()).isEqualTo(1000);
        assertThat(before.producerIds().nextProducerId()).isZero();
    }

    @Test
    void partitionChangeReplacesOnlyThatPartition() {
        MetadataImage before = ordersImage();
        MetadataDelta delta = new MetadataDelta(before);
        delta.replay(new PartitionRecord(ORDERS, 1, new int[] {1, 2}, new int[] {2}, 2, 1, 1));
        MetadataImage after = delta.apply(4);

        TopicDelta topicDelta = delta.topicsDelta().changedTopics().get(ORDERS);
        assertThat(topicDelta.isCreated()).isFalse();
        assertThat(topicDelta.changedPartitions()).containsOnlyKeys(1);
        assertThat(after.topics().getTopic(ORDERS).partition(0))
                .isEqualTo(before.topics().getTopic(ORDERS).partition(0));
        assertThat(after.topics().getTopic(ORDERS).partition(1).leader()).isEqualTo(2);
        assertThat(before.topics().getTopic(ORDERS).partition(1).leader()).isEqualTo(1);
    }

    @Test
    void removingATopicRemovesItsConfigsAndFreesItsName() {
        MetadataDelta delta = new MetadataDelta(ordersImage());
        delta.replay(new RemoveTopicRecord(ORDERS));
        delta.replay(new TopicRecord("orders", PAYMENTS));
        delta.replay(partition(PAYMENTS, 0, 2));
        MetadataImage after = delta.apply(7);

        assertThat(delta.topicsDelta().deletedTopics()).containsOnlyKeys(ORDERS);
        assertThat(delta.topicsDelta().createdTopicIds()).containsExactly(PAYMENTS);
        assertThat(after.topics().getTopic(ORDERS)).isNull();
        assertThat(after.topics().getTopic("orders").id()).isEqualTo(PAYMENTS);
        assertThat(after.configs().topicConfigs("orders")).isEmpty();
    }

    @Test
    void topicCreatedAndDeletedWithinOneDeltaLeavesNoTrace() {
        MetadataDelta delta = new MetadataDelta(MetadataImage.EMPTY);
        delta.replay(new TopicRecord("tmp", ORDERS));
        delta.replay(partition(ORDERS, 0, 1));
        delta.replay(new ConfigRecord(ConfigResourceType.TOPIC, "tmp", "retention.ms", "5"));
        delta.replay(new RemoveTopicRecord(ORDERS));
        MetadataImage after = delta.apply(3);

        assertThat(delta.topicsDelta().changedTopics()).isEmpty();
        assertThat(delta.topicsDelta().deletedTopics()).isEmpty();
        assertThat(after.topics().isEmpty()).isTrue();
        assertThat(after.configs().resources()).isEmpty();
    }

    @Test
    void configRecordWithNullValueDeletesTheConfig() {
        MetadataImage after = replay(
                ordersImage(),
                4,
                new ConfigRecord(ConfigResourceType.TOPIC, "orders", "retention.ms", null),
                new ConfigRecord(ConfigResourceType.BROKER, "1", "log.retention.ms", "5"));

        assertThat(after.configs().topicConfigs("orders")).isEmpty();
        assertThat(after.configs().configs(ConfigResource.broker(1))).containsEntry("log.retention.ms", "5");
    }

    @Test
    void brokerReRegistrationReplacesThePreviousOne() {
        Endpoint endpoint = new Endpoint("PLAINTEXT", "localhost", 9092, "PLAINTEXT");
        Uuid second = Uuid.randomUuid();
        MetadataImage after = replay(
                MetadataImage.EMPTY,
                1,
                new RegisterBrokerRecord(1, Uuid.randomUuid(), List.of(endpoint), null),
                new RegisterBrokerRecord(1, second, List.of(endpoint), "r1"));

        assertThat(after.cluster().brokerIds()).containsExactly(1);
        assertThat(after.cluster().broker(1).incarnationId()).isEqualTo(second);
        assertThat(after.cluster().broker(1).endpoint("PLAINTEXT")).contains(endpoint);
    }

    @Test
    void recordsContradictingTheImageAreRejected() {
        MetadataImage image = ordersImage();

        assertThatThrownBy(() -> replay(image, 4, new TopicRecord("orders", PAYMENTS)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> replay(image, 4, partition(PAYMENTS, 0, 1))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> replay(image, 4, new RemoveTopicRecord(PAYMENTS)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> replay(image, 4, new TopicRecord("gap", PAYMENTS), partition(PAYMENTS, 1, 1)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> replay(image, 4, new ProducerIdsRecord(1, 100), new ProducerIdsRecord(1, 100)))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void imageRebuiltFromItsOwnRecordsIsEqual() {
        MetadataImage image = replay(
                ordersImage(),
                9,
                new RegisterBrokerRecord(
                        1, Uuid.randomUuid(), List.of(new Endpoint("PLAINTEXT", "localhost", 9092, "PLAINTEXT")), null),
                new TopicRecord("payments", PAYMENTS),
                partition(PAYMENTS, 0, 1),
                new ConfigRecord(ConfigResourceType.BROKER, "1", "x", "y"),
                new ProducerIdsRecord(1, 2000));

        MetadataImage rebuilt =
                replay(MetadataImage.EMPTY, image.offset(), image.toRecords().toArray(MetadataRecord[]::new));

        assertThat(rebuilt).isEqualTo(image);
    }
}
