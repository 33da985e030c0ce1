package io.varve.metadata.controller.feature;

import io.varve.metadata.image.FeaturesImage;
import io.varve.metadata.record.VersionRange;
import java.util.Map;

/**
 * The feature levels this build of Varve supports, as brokers declare them at registration and as
 * the controller accepts them in UpdateFeatures. Kafka's feature names and level numbers.
 */
public final class SupportedFeatures {

    public static final String METADATA_VERSION = FeaturesImage.METADATA_VERSION;
    public static final String KRAFT_VERSION = "kraft.version";
    public static final String TRANSACTION_VERSION = "transaction.version";
    public static final String GROUP_VERSION = "group.version";
    /** KIP-1071: level 1 serves streams groups (StreamsGroupHeartbeat, StreamsGroupDescribe). */
    public static final String STREAMS_VERSION = "streams.version";
    /** KIP-966: the controller keeps eligible leader replicas at level 1 (on by default in new clusters). */
    public static final String ELIGIBLE_LEADER_REPLICAS_VERSION = "eligible.leader.replicas.version";

    /**
     * metadata.version from 3.3-IV3 (7, the oldest Kafka 4 accepts) to 4.1-IV1 (27); kraft.version 0
     * (a static voter set: no KIP-853 reconfiguration yet); transaction.version up to 2 (1: the
     * partition leader verifies transactional writes, KIP-890 part 1; 2: transactions v2, the epoch
     * bumped at the end of every transaction, KIP-890 part 2); group.version up to 1 (KIP-848 consumer groups);
     * eligible.leader.replicas.version up to 1 (KIP-966); streams.version up to 1 (KIP-1071 streams groups).
     */
    public static final Map<String, VersionRange> THIS_BUILD = Map.of(
            METADATA_VERSION, VersionRange.of(7, 27),
            KRAFT_VERSION, VersionRange.of(0, 0),
            TRANSACTION_VERSION, VersionRange.of(0, 2),
            GROUP_VERSION, VersionRange.of(0, 1),
            ELIGIBLE_LEADER_REPLICAS_VERSION, VersionRange.of(0, 1),
            STREAMS_VERSION, VersionRange.of(0, 1));

    /** The transaction.version a new cluster finalizes, as Kafka 4.x's {@code kafka-storage format} does. */
    public static final short DEFAULT_TRANSACTION_VERSION = 2;

    private SupportedFeatures() {}
}
