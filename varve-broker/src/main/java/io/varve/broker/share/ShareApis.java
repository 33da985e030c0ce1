package io.varve.broker.share;

import io.varve.broker.api.ApiRegistry;
import io.varve.broker.config.BrokerConfig;
import io.varve.broker.controller.ControllerCalls;
import io.varve.broker.group.CoordinatorTopic;
import io.varve.broker.group.GroupCoordinatorRuntime;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.replica.LeadershipListener;
import io.varve.broker.replica.ReplicaManager;
import io.varve.coordinator.group.share.ShareGroupConfig;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Registers ShareFetch and ShareAcknowledge (v1: Kafka 4.4 also serves v2, whose RENEW acknowledgements Varve does
 * not implement) and the share group offset admin APIs.
 */
public final class ShareApis {
    private ShareApis() {}

    /** The durable state store: {@code __share_group_state} with the share.coordinator.state.topic.* settings. */
    public static ShareStateStore stateStore(
            BrokerConfig config,
            int nodeId,
            MetadataCache cache,
            ReplicaManager replicaManager,
            ControllerCalls controller) {
        CoordinatorTopic topic = new CoordinatorTopic(
                TopicShareStateStore.TOPIC,
                nodeId,
                config.shareStateTopicInt("share.coordinator.state.topic.num.partitions"),
                (short) config.shareStateTopicInt("share.coordinator.state.topic.replication.factor"),
                "share.coordinator.state.topic.replication.factor",
                config.shareStateTopicInt("share.coordinator.state.topic.min.isr"),
                Map.of(
                        "cleanup.policy",
                        "compact",
                        "segment.bytes",
                        Integer.toString(config.shareStateTopicInt("share.coordinator.state.topic.segment.bytes"))),
                cache,
                replicaManager,
                controller);
        return new TopicShareStateStore(topic, replicaManager, nodeId);
    }

    /** Returns the share-partition states, which the share group admin APIs read and change. */
    public static SharePartitions register(
            ApiRegistry registry,
            MetadataCache cache,
            ReplicaManager replicaManager,
            GroupCoordinatorRuntime groups,
            ShareStateStore store,
            LongSupplier clock) {
        ShareGroupConfig config = groups.settings().share();
        ShareSessions sessions = new ShareSessions(config.maxShareSessions(), config.sessionTimeoutMs(), clock);
        SharePartitions partitions = new SharePartitions(config, store, new GroupShareSettings(groups), clock);
        registry.register(ApiKeys.SHARE_FETCH, 1, 1, new ShareFetchHandler(cache, replicaManager, sessions, partitions))
                .register(
                        ApiKeys.SHARE_ACKNOWLEDGE,
                        1,
                        1,
                        new ShareAcknowledgeHandler(cache, replicaManager, sessions, partitions));
        ShareGroupAdminHandlers admin = new ShareGroupAdminHandlers(cache, replicaManager, groups, partitions);
        registry.register(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, 0, 1, admin::describe)
                .register(ApiKeys.ALTER_SHARE_GROUP_OFFSETS, 0, 0, admin::alter)
                .register(ApiKeys.DELETE_SHARE_GROUP_OFFSETS, 0, 0, admin::delete);
        groups.onGroupDeleted(partitions::deleteGroup);
        replicaManager.addLeadershipListener(new LeadershipListener() {
            @Override
            public void onBecomingLeader(TopicPartition tp, int leaderEpoch) {}

            @Override
            public void onResigning(TopicPartition tp, int leaderEpoch) {
                store.resigned(tp);
                MetadataSnapshot.TopicInfo topic =
                        cache.snapshot().topicsByName().get(tp.topic());
                if (topic != null) {
                    partitions.resigned(topic.id(), tp.partition());
                }
            }
        });
        return partitions;
    }
}
