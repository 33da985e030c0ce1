package io.varve.broker.share;

import io.varve.broker.api.ApiRegistry;
import io.varve.broker.config.BrokerConfig;
import io.varve.broker.controller.ControllerCalls;
import io.varve.broker.group.CoordinatorTopic;
import io.varve.broker.group.GroupCoordinatorRuntime;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.network.client.ClientSecurity;
import io.varve.broker.network.client.NodeClient;
import io.varve.broker.replica.LeadershipListener;
import io.varve.broker.replica.ReplicaManager;
import io.varve.broker.share.coordinator.ShareCoordinatorService;
import io.varve.broker.share.coordinator.ShareStateApis;
import io.varve.coordinator.group.share.ShareGroupConfig;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Registers ShareFetch and ShareAcknowledge (v1-2), the share group offset admin APIs, and the share coordinator's
 * state APIs (83-87).
 */
public final class ShareApis {
    public static final String SHARE_STATE_TOPIC = "__share_group_state";

    private ShareApis() {}

    /** How long a share-partition leader retries a call the coordinator cannot answer yet, and how often. */
    static final long STATE_CALL_DEADLINE_MS = 15_000;

    static final long STATE_CALL_BACKOFF_MS = 100;

    /**
     * The share coordinator of the {@code __share_group_state} partitions this broker leads (with the
     * share.coordinator.state.topic.* settings), its APIs 83-87 registered in {@code registry}, and the store this
     * broker's share-partition leaders use: it reaches the coordinator of each key here or over {@code
     * interBrokerListener} with {@code security}. Closing it closes its node client.
     */
    public static CoordinatorShareStateStore stateStore(
            BrokerConfig config,
            int nodeId,
            MetadataCache cache,
            ReplicaManager replicaManager,
            ControllerCalls controller,
            ApiRegistry registry,
            String interBrokerListener,
            ClientSecurity security) {
        CoordinatorTopic topic = new CoordinatorTopic(
                SHARE_STATE_TOPIC,
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
        ShareCoordinatorService service = new ShareCoordinatorService(topic, replicaManager, nodeId);
        ShareStateApis apis = new ShareStateApis(service, cache);
        apis.register(registry);
        replicaManager.addLeadershipListener(new LeadershipListener() {
            @Override
            public void onBecomingLeader(TopicPartition tp, int leaderEpoch) {}

            @Override
            public void onResigning(TopicPartition tp, int leaderEpoch) {
                if (tp.topic().equals(SHARE_STATE_TOPIC)) {
                    service.resigned(tp.partition());
                }
            }
        });
        NodeClient client = new NodeClient(
                "varve-broker-" + nodeId + "-share-state",
                "varve-share-state-client",
                config.socketRequestMaxBytes(),
                64,
                5_000,
                security);
        ShareStateChannel channel = new ShareStateChannel(nodeId, apis, cache, interBrokerListener, client);
        ExecutorService completions = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "varve-share-state-answers");
            t.setDaemon(true);
            return t;
        });
        CoordinatorShareStateStore.Locator locator = new CoordinatorShareStateStore.Locator() {
            @Override
            public int coordinatorNode(SharePartitionKey key) {
                if (topic.info() == null) {
                    topic.ensureExists(); // created on first use, as Kafka's share coordinator topic is
                    return -1;
                }
                return topic.coordinatorNode(
                        ShareCoordinatorService.coordinatorKey(key.groupId(), key.topicId(), key.partition()));
            }

            @Override
            public java.util.concurrent.CompletableFuture<Void> ensureTopic() {
                return topic.ensureExists();
            }

            @Override
            public List<SharePartitionKey> localKeys(String groupId) {
                return service.keysOf(groupId).stream()
                        .map(k -> new SharePartitionKey(k.groupId(), k.topicId(), k.partition()))
                        .toList();
            }
        };
        return new CoordinatorShareStateStore(
                locator,
                channel,
                System::currentTimeMillis,
                completions,
                STATE_CALL_BACKOFF_MS,
                STATE_CALL_DEADLINE_MS,
                () -> {
                    client.close();
                    completions.shutdownNow();
                });
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
        SharePartitions partitions = new SharePartitions(config, store, new GroupShareSettings(groups), clock, key -> {
            int[] leader = ShareRequests.leaderAndEpoch(cache.snapshot(), key);
            return leader == null ? -1 : leader[1];
        });
        // a state read from the coordinator wakes the fetches waiting on its partition
        partitions.onStateLoaded(key -> {
            TopicPartition tp = ShareRequests.topicPartition(cache.snapshot(), key);
            if (tp != null) {
                replicaManager.fetchPurgatory().onHighWatermark(tp);
            }
        });
        registry.register(ApiKeys.SHARE_FETCH, 1, 2, new ShareFetchHandler(cache, replicaManager, sessions, partitions))
                .register(
                        ApiKeys.SHARE_ACKNOWLEDGE,
                        1,
                        2,
                        new ShareAcknowledgeHandler(cache, replicaManager, sessions, partitions));
        ShareGroupAdminHandlers admin = new ShareGroupAdminHandlers(cache, replicaManager, groups, partitions);
        registry.register(ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, 0, 1, admin::describe)
                .register(ApiKeys.ALTER_SHARE_GROUP_OFFSETS, 0, 0, admin::alter)
                .register(ApiKeys.DELETE_SHARE_GROUP_OFFSETS, 0, 0, admin::delete);
        // a deleted group's states may be on any share coordinator: every partition's key is sent to its own
        groups.onGroupDeleted(groupId -> {
            List<SharePartitionKey> every = new java.util.ArrayList<>();
            for (MetadataSnapshot.TopicInfo t : cache.snapshot().topicsById().values()) {
                if (!t.isInternal()) {
                    t.partitions().keySet().forEach(p -> every.add(new SharePartitionKey(groupId, t.id(), p)));
                }
            }
            partitions.deleteGroup(groupId, every);
        });
        replicaManager.addLeadershipListener(new LeadershipListener() {
            @Override
            public void onBecomingLeader(TopicPartition tp, int leaderEpoch) {}

            @Override
            public void onResigning(TopicPartition tp, int leaderEpoch) {
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
