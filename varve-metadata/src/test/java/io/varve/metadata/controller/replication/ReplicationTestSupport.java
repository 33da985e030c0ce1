package io.varve.metadata.controller.replication;

import io.varve.metadata.controller.ClusterFixture;
import io.varve.metadata.controller.feature.SupportedFeatures;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.BrokerRegistrationChangeRecord;
import io.varve.metadata.record.ConfigRecord;
import io.varve.metadata.record.ConfigResourceType;
import io.varve.metadata.record.FeatureLevelRecord;
import io.varve.metadata.record.MetadataRecord;
import java.util.ArrayList;
import java.util.List;

/** Shortcuts for the replication controls' tests: ELR on, topic configs, fencing with its leadership moves. */
final class ReplicationTestSupport {

    private ReplicationTestSupport() {}

    static FeatureLevelRecord elrOn() {
        return new FeatureLevelRecord(SupportedFeatures.ELIGIBLE_LEADER_REPLICAS_VERSION, (short) 1);
    }

    static ConfigRecord topicConfig(String topic, String name, String value) {
        return new ConfigRecord(ConfigResourceType.TOPIC, topic, name, value);
    }

    static ConfigRecord clusterConfig(String name, String value) {
        return new ConfigRecord(ConfigResourceType.BROKER, "", name, value);
    }

    /** The broker fenced, as the controller fences it: leaderships and ISR memberships move first. */
    static MetadataImage fence(ReplicationControl control, MetadataImage image, int broker) {
        List<MetadataRecord> records = new ArrayList<>(control.removeFromIsrsAndLeaderships(image, broker));
        records.add(BrokerRegistrationChangeRecord.fence(
                broker, image.cluster().broker(broker).epoch()));
        return ClusterFixture.apply(image, records);
    }

    /** The broker unfenced, with the elections its return allows. */
    static MetadataImage unfence(ReplicationControl control, MetadataImage image, int broker) {
        MetadataImage unfenced = ClusterFixture.apply(
                image,
                List.of(BrokerRegistrationChangeRecord.unfence(
                        broker, image.cluster().broker(broker).epoch())));
        return ClusterFixture.apply(unfenced, control.electOfflineLeaders(unfenced, broker));
    }
}
