package io.varve.metadata.controller;

import io.varve.metadata.controller.feature.SupportedFeatures;
import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.PartitionImage;
import io.varve.metadata.record.BrokerRegistrationChangeRecord;
import io.varve.metadata.record.Endpoint;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.PartitionRecord;
import io.varve.metadata.record.RegisterBrokerRecord;
import io.varve.metadata.record.TopicRecord;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;

/** Builds metadata images of a multi-broker cluster for the controls' tests. Broker {@code id} has epoch 100 + id. */
public final class ClusterFixture {

    private final List<MetadataRecord> records = new ArrayList<>();
    private int topics;

    public static ClusterFixture cluster() {
        return new ClusterFixture();
    }

    public static long epochOf(int brokerId) {
        return 100 + brokerId;
    }

    public static Uuid topicId(int index) {
        return new Uuid(7, index);
    }

    /** Registered and unfenced brokers, no rack. */
    public ClusterFixture unfenced(int... brokerIds) {
        for (int id : brokerIds) {
            records.add(registration(id, null));
            records.add(BrokerRegistrationChangeRecord.unfence(id, epochOf(id)));
        }
        return this;
    }

    /** Registered, still fenced brokers. */
    public ClusterFixture fenced(int... brokerIds) {
        for (int id : brokerIds) {
            records.add(registration(id, null));
        }
        return this;
    }

    public static RegisterBrokerRecord registration(int id, String rack) {
        return new RegisterBrokerRecord(
                id,
                new Uuid(1, id),
                epochOf(id),
                List.of(new Endpoint("PLAINTEXT", "b" + id, 9092, "PLAINTEXT")),
                rack,
                SupportedFeatures.THIS_BUILD,
                true,
                false);
    }

    /** A topic "t{n}" (n = 0, 1 …, id {@link #topicId}) with one partition of these replicas, ISR and leader. */
    public ClusterFixture partition(int[] replicas, int[] isr, int leader) {
        Uuid id = topicId(topics);
        records.add(new TopicRecord("t" + topics, id));
        records.add(new PartitionRecord(id, 0, replicas, isr, leader, 5, 10));
        topics++;
        return this;
    }

    public ClusterFixture record(MetadataRecord record) {
        records.add(record);
        return this;
    }

    public MetadataImage image() {
        return apply(MetadataImage.EMPTY, records);
    }

    public static MetadataImage apply(MetadataImage image, List<MetadataRecord> records) {
        MetadataDelta delta = new MetadataDelta(image);
        records.forEach(delta::replay);
        return delta.apply(image.offset() + records.size());
    }

    public static PartitionImage partitionOf(MetadataImage image, int topicIndex) {
        return image.topics().getTopic(topicId(topicIndex)).partition(0);
    }

    public static int[] ids(int... ids) {
        return ids;
    }
}
