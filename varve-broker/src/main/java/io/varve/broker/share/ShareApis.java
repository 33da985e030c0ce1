package io.varve.broker.share;

import io.varve.broker.api.ApiRegistry;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.replica.ReplicaManager;
import io.varve.coordinator.group.share.ShareGroupConfig;
import java.util.function.LongSupplier;
import org.apache.kafka.common.protocol.ApiKeys;

/** Registers ShareFetch and ShareAcknowledge (v1, as Kafka 4.4 serves them without the v2 renew acknowledgements). */
public final class ShareApis {
    private ShareApis() {}

    /** Returns the share-partition states, which the share group admin APIs read and change. */
    public static SharePartitions register(
            ApiRegistry registry,
            MetadataCache cache,
            ReplicaManager replicaManager,
            ShareGroupConfig config,
            ShareStateStore store,
            LongSupplier clock) {
        ShareSessions sessions = new ShareSessions(config.maxShareSessions(), config.sessionTimeoutMs(), clock);
        SharePartitions partitions = new SharePartitions(config, store, groupId -> false, clock);
        registry.register(ApiKeys.SHARE_FETCH, 1, 1, new ShareFetchHandler(cache, replicaManager, sessions, partitions))
                .register(
                        ApiKeys.SHARE_ACKNOWLEDGE,
                        1,
                        1,
                        new ShareAcknowledgeHandler(cache, replicaManager, sessions, partitions));
        return partitions;
    }
}
