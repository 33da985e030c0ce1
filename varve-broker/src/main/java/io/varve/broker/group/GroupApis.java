package io.varve.broker.group;

import io.varve.broker.api.ApiRegistry;
import io.varve.broker.metadata.MetadataCache;
import org.apache.kafka.common.protocol.ApiKeys;

/** Registers the group APIs with the version ranges this broker implements (Kafka 4.1's, without unstable ones). */
public final class GroupApis {
    private GroupApis() {}

    public static void register(ApiRegistry registry, GroupCoordinatorRuntime runtime, MetadataCache cache) {
        register(registry, runtime, cache, null, null);
    }

    /**
     * {@code transactions}: where FindCoordinator finds transaction coordinators (null: not available);
     * {@code verifier}: the transaction coordinator's check behind TxnOffsetCommit (null: TxnOffsetCommit is not
     * served).
     */
    public static void register(
            ApiRegistry registry,
            GroupCoordinatorRuntime runtime,
            MetadataCache cache,
            FindCoordinatorHandler.Coordinators transactions,
            TransactionVerifier verifier) {
        if (verifier != null) {
            registry.register(ApiKeys.TXN_OFFSET_COMMIT, 0, 6, new TxnOffsetCommitHandler(runtime, cache, verifier));
        }
        ClassicGroupHandlers classic = new ClassicGroupHandlers(runtime);
        OffsetHandlers offsets = new OffsetHandlers(runtime, cache);
        GroupAdminHandlers admin = new GroupAdminHandlers(runtime);
        ConsumerGroupHandlers consumer = new ConsumerGroupHandlers(runtime);
        ShareGroupHandlers share = new ShareGroupHandlers(runtime);
        registry.register(ApiKeys.FIND_COORDINATOR, 0, 6, new FindCoordinatorHandler(runtime, cache, transactions))
                .register(ApiKeys.JOIN_GROUP, 0, 9, classic::join)
                .register(ApiKeys.SYNC_GROUP, 0, 5, classic::sync)
                .register(ApiKeys.HEARTBEAT, 0, 4, classic::heartbeat)
                .register(ApiKeys.LEAVE_GROUP, 0, 5, classic::leave)
                .register(ApiKeys.OFFSET_COMMIT, 2, 10, offsets::commit)
                .register(ApiKeys.OFFSET_FETCH, 1, 10, offsets::fetch)
                .register(ApiKeys.OFFSET_DELETE, 0, 0, offsets::delete)
                .register(ApiKeys.DESCRIBE_GROUPS, 0, 6, admin::describe)
                .register(ApiKeys.LIST_GROUPS, 0, 5, admin::list)
                .register(ApiKeys.DELETE_GROUPS, 0, 3, admin::delete)
                .register(ApiKeys.CONSUMER_GROUP_HEARTBEAT, 0, 1, consumer::heartbeat)
                .register(ApiKeys.CONSUMER_GROUP_DESCRIBE, 0, 1, consumer::describe)
                .register(ApiKeys.SHARE_GROUP_HEARTBEAT, 1, 1, share::heartbeat)
                .register(ApiKeys.SHARE_GROUP_DESCRIBE, 1, 1, share::describe);
    }
}
