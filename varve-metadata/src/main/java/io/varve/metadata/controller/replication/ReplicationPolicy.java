package io.varve.metadata.controller.replication;

import io.varve.metadata.config.TopicConfigDef;
import io.varve.metadata.controller.feature.SupportedFeatures;
import io.varve.metadata.image.ConfigResource;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.ConfigResourceType;
import java.util.Map;

/**
 * The controller's settings for leader elections, and their value for one topic: the topic's override,
 * else the cluster-wide dynamic default (broker resource ""), else the controller's own static setting.
 *
 * @param uncleanLeaderElectionEnable {@code unclean.leader.election.enable} of the controller (false)
 * @param minInsyncReplicas           {@code min.insync.replicas} of the controller (1)
 */
public record ReplicationPolicy(boolean uncleanLeaderElectionEnable, int minInsyncReplicas) {

    /** Kafka's defaults. */
    public static final ReplicationPolicy DEFAULTS = new ReplicationPolicy(false, 1);

    private static final ConfigResource CLUSTER_DEFAULT = new ConfigResource(ConfigResourceType.BROKER, "");

    public ReplicationPolicy {
        if (minInsyncReplicas < 1) {
            throw new IllegalArgumentException("min.insync.replicas must be >= 1: " + minInsyncReplicas);
        }
    }

    /** The rules one partition of {@code topicName} is elected by in this image. */
    public TopicRules rulesFor(MetadataImage image, String topicName) {
        Map<String, String> topic = image.configs().topicConfigs(topicName);
        Map<String, String> cluster = image.configs().configs(CLUSTER_DEFAULT);
        String unclean = firstSet(topic, cluster, TopicConfigDef.UNCLEAN_LEADER_ELECTION_ENABLE);
        String minIsr = firstSet(topic, cluster, TopicConfigDef.MIN_INSYNC_REPLICAS);
        return new TopicRules(
                elrEnabled(image),
                minIsr == null ? minInsyncReplicas : Math.max(1, parseInt(minIsr, minInsyncReplicas)),
                unclean == null ? uncleanLeaderElectionEnable : Boolean.parseBoolean(unclean.trim()));
    }

    /** KIP-966 is on once {@code eligible.leader.replicas.version} is finalized at 1 or higher. */
    public static boolean elrEnabled(MetadataImage image) {
        return image.features().level(SupportedFeatures.ELIGIBLE_LEADER_REPLICAS_VERSION) >= 1;
    }

    private static String firstSet(Map<String, String> topic, Map<String, String> cluster, String key) {
        String value = topic.get(key);
        return value != null ? value : cluster.get(key);
    }

    /** Values were validated when set; a value that is not a number still must not stop elections. */
    private static int parseInt(String value, int fallback) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    /**
     * @param elrEnabled     eligible leader replicas are kept and may be elected
     * @param minIsr         the topic's {@code min.insync.replicas}
     * @param uncleanEnabled the topic's {@code unclean.leader.election.enable}
     */
    public record TopicRules(boolean elrEnabled, int minIsr, boolean uncleanEnabled) {}
}
