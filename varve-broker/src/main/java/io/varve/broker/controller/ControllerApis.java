package io.varve.broker.controller;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.api.ApiRegistry;
import io.varve.broker.api.ApiVersionsHandler;
import io.varve.broker.api.CreateTopicsHandler;
import io.varve.broker.api.DeleteTopicsHandler;
import io.varve.broker.api.admin.AlterClientQuotasHandler;
import io.varve.broker.api.admin.AlterConfigsHandler;
import io.varve.broker.api.admin.AlterPartitionReassignmentsHandler;
import io.varve.broker.api.admin.CreatePartitionsHandler;
import io.varve.broker.api.admin.ElectLeadersHandler;
import io.varve.broker.api.admin.IncrementalAlterConfigsHandler;
import io.varve.broker.api.admin.ListPartitionReassignmentsHandler;
import io.varve.broker.api.admin.UpdateFeaturesHandler;
import io.varve.broker.api.controller.AllocateProducerIdsHandler;
import io.varve.broker.api.controller.AlterPartitionHandler;
import io.varve.broker.api.controller.BrokerHeartbeatHandler;
import io.varve.broker.api.controller.BrokerRegistrationHandler;
import io.varve.broker.api.controller.ControllerDescribeClusterHandler;
import io.varve.broker.api.controller.EnvelopeHandler;
import io.varve.broker.api.controller.UnregisterBrokerHandler;
import io.varve.broker.api.security.AlterUserScramCredentialsHandler;
import io.varve.broker.api.security.CreateAclsHandler;
import io.varve.broker.api.security.DeleteAclsHandler;
import io.varve.broker.raft.RaftApis;
import io.varve.broker.raft.RaftRequestDispatcher;
import io.varve.metadata.MetadataLoader;
import io.varve.metadata.controller.QuorumController;
import io.varve.raft.MetadataRaft;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.NotControllerException;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The APIs a controller serves on its controller listener, as Kafka's controller advertises them: ApiVersions,
 * DescribeCluster (controller endpoints), the admin writes, the broker lifecycle, producer-id blocks, Envelope, and the
 * Raft APIs (those are dispatched to the Raft transport, listed here for ApiVersions). The admin handlers are the ones
 * a broker used to call in process: one request-to-controller mapping for both ways in.
 *
 * <p>Only the active controller (the metadata log's leader) answers controller requests: a standby answers each with
 * its error response carrying NOT_CONTROLLER, which brokers and Admin clients retry elsewhere. ApiVersions and
 * DescribeCluster are answered by every controller, since that is how a client finds the active one.
 */
public final class ControllerApis implements ControllerRouter.LocalController {
    private final int nodeId;
    private final MetadataRaft raft;
    private final ApiRegistry registry = new ApiRegistry();
    private final ApiVersionsHandler apiVersions;
    private final QuorumController controller;
    private final BrokerConnections brokerConnections = new BrokerConnections();
    private final long connectionLossGraceMs;
    /** Where DescribeQuorum and voter changes go once the node's Raft transport serves them; null before. */
    private volatile ApiHandler raftAdmin;
    /** How an Envelope's inner request is authorized as its client; null without an authorizer. */
    private volatile io.varve.broker.security.AuthorizationHook authorization;

    /**
     * @param controllers         every controller's id and controller-listener address
     * @param deleteTopicEnable   {@code delete.topic.enable}
     * @param producerIdBlockSize how many producer ids a block holds
     * @param connectionLossGraceMs how long a broker whose heartbeat connection closed has to heartbeat again before
     *                            it is fenced (a little more than its heartbeat interval)
     */
    public ControllerApis(
            int nodeId,
            String clusterId,
            QuorumController controller,
            MetadataRaft raft,
            MetadataLoader loader,
            Supplier<Map<Integer, InetSocketAddress>> controllers,
            boolean deleteTopicEnable,
            int producerIdBlockSize,
            long connectionLossGraceMs) {
        this.nodeId = nodeId;
        this.raft = raft;
        this.controller = controller;
        this.connectionLossGraceMs = connectionLossGraceMs;
        ApiHandler heartbeats = new BrokerHeartbeatHandler(controller);
        this.apiVersions = new ApiVersionsHandler(registry, loader::image);
        int anyBroker = IncrementalAlterConfigsHandler.ANY_BROKER;
        registry.register(ApiKeys.API_VERSIONS, 0, 5, apiVersions)
                .register(
                        ApiKeys.DESCRIBE_CLUSTER,
                        0,
                        2,
                        new ControllerDescribeClusterHandler(clusterId, raft::leaderId, controllers))
                .register(ApiKeys.CREATE_TOPICS, 2, 7, activeOnly(new CreateTopicsHandler(controller)))
                .register(
                        ApiKeys.DELETE_TOPICS, 1, 6, activeOnly(new DeleteTopicsHandler(controller, deleteTopicEnable)))
                .register(ApiKeys.CREATE_PARTITIONS, 0, 3, activeOnly(new CreatePartitionsHandler(controller)))
                .register(
                        ApiKeys.INCREMENTAL_ALTER_CONFIGS,
                        0,
                        1,
                        activeOnly(new IncrementalAlterConfigsHandler(controller, anyBroker)))
                .register(ApiKeys.ALTER_CONFIGS, 0, 2, activeOnly(new AlterConfigsHandler(controller, anyBroker)))
                .register(ApiKeys.UPDATE_FEATURES, 0, 2, activeOnly(new UpdateFeaturesHandler(controller)))
                .register(ApiKeys.ELECT_LEADERS, 0, 2, activeOnly(new ElectLeadersHandler(controller)))
                .register(
                        ApiKeys.ALTER_PARTITION_REASSIGNMENTS,
                        0,
                        1,
                        activeOnly(new AlterPartitionReassignmentsHandler(controller)))
                .register(
                        ApiKeys.LIST_PARTITION_REASSIGNMENTS,
                        0,
                        0,
                        activeOnly(new ListPartitionReassignmentsHandler(controller)))
                .register(
                        ApiKeys.ALTER_USER_SCRAM_CREDENTIALS,
                        0,
                        0,
                        activeOnly(new AlterUserScramCredentialsHandler(controller)))
                .register(ApiKeys.ALTER_CLIENT_QUOTAS, 0, 1, activeOnly(new AlterClientQuotasHandler(controller)))
                .register(
                        ApiKeys.CREATE_ACLS,
                        ApiKeys.CREATE_ACLS.oldestVersion(),
                        ApiKeys.CREATE_ACLS.latestVersion(),
                        activeOnly(new CreateAclsHandler(controller)))
                .register(
                        ApiKeys.DELETE_ACLS,
                        ApiKeys.DELETE_ACLS.oldestVersion(),
                        ApiKeys.DELETE_ACLS.latestVersion(),
                        activeOnly(new DeleteAclsHandler(controller)))
                .register(ApiKeys.BROKER_REGISTRATION, 0, 4, activeOnly(new BrokerRegistrationHandler(controller)))
                .register(ApiKeys.BROKER_HEARTBEAT, 0, 2, activeOnly(request -> {
                    BrokerHeartbeatRequestData heartbeat = request.body();
                    brokerConnections.heartbeatOn(heartbeat.brokerId(), request.clientAddress());
                    return heartbeats.handle(request);
                }))
                .register(ApiKeys.UNREGISTER_BROKER, 0, 0, activeOnly(new UnregisterBrokerHandler(controller)))
                .register(
                        ApiKeys.UNREGISTER_CONTROLLER,
                        0,
                        0,
                        activeOnly(new io.varve.broker.api.controller.UnregisterControllerHandler()))
                .register(
                        ApiKeys.ALLOCATE_PRODUCER_IDS,
                        0,
                        0,
                        activeOnly(new AllocateProducerIdsHandler(controller, producerIdBlockSize)))
                .register(ApiKeys.ALTER_PARTITION, 2, 3, activeOnly(new AlterPartitionHandler(controller)))
                .register(ApiKeys.ENVELOPE, 0, 0, activeOnly(new EnvelopeHandler(registry, () -> {
                    io.varve.broker.security.AuthorizationHook hook = authorization;
                    return hook == null ? null : hook::handle;
                })));
        // On the controller listener the Raft transport takes these before the registry; what reaches them here came
        // in an Envelope or from this node's broker: the admin ones go to the Raft runtime, replication never does.
        ApiHandler servedByRaft = request -> {
            ApiHandler admin = raftAdmin;
            if (admin != null && RAFT_ADMIN_APIS.contains(request.apiKey())) {
                return admin.handle(request);
            }
            return CompletableFuture.failedFuture(
                    new IllegalStateException(request.apiKey() + " is the Raft transport's to answer"));
        };
        for (ApiKeys api : RaftRequestDispatcher.servedApis()) {
            registry.register(api, RaftApis.oldestVersion(api), RaftApis.latestVersion(api), servedByRaft);
        }
    }

    private static final java.util.Set<ApiKeys> RAFT_ADMIN_APIS =
            java.util.EnumSet.of(ApiKeys.DESCRIBE_QUORUM, ApiKeys.ADD_RAFT_VOTER, ApiKeys.REMOVE_RAFT_VOTER);

    /** Authorizes the request inside each Envelope as its client's principal (with an authorizer). */
    public void authorizeEnvelopesWith(io.varve.broker.security.AuthorizationHook hook) {
        this.authorization = hook;
    }

    /**
     * DescribeQuorum, AddRaftVoter and RemoveRaftVoter forwarded by a broker (in an Envelope, or in process) are
     * handed to {@code handler}, the node's Raft runtime.
     */
    public void serveRaftAdmin(ApiHandler handler) {
        this.raftAdmin = handler;
    }

    /**
     * CreateDelegationToken, RenewDelegationToken and ExpireDelegationToken, forwarded by brokers that checked the
     * caller (Kafka 4.4's versions); with tokens off they answer DELEGATION_TOKEN_AUTH_DISABLED.
     */
    public void serveDelegationTokens(
            io.varve.broker.security.DelegationTokenSettings settings,
            MetadataLoader loader,
            java.util.function.LongSupplier wallClockMs) {
        ApiHandler change = activeOnly(new io.varve.broker.api.security.ChangeDelegationTokenHandler(
                controller, loader::image, settings, wallClockMs));
        registry.register(
                        ApiKeys.CREATE_DELEGATION_TOKEN,
                        1,
                        3,
                        activeOnly(new io.varve.broker.api.security.CreateDelegationTokenHandler(
                                controller, settings, wallClockMs)))
                .register(ApiKeys.RENEW_DELEGATION_TOKEN, 1, 2, change)
                .register(ApiKeys.EXPIRE_DELEGATION_TOKEN, 1, 2, change);
    }

    /**
     * A connection to the controller listener closed: if a broker heartbeated on it last, the controller fences that
     * broker unless it heartbeats again within the grace period (see {@link QuorumController#brokerConnectionLost}).
     */
    public void connectionClosed(InetSocketAddress remote) {
        brokerConnections
                .closed(remote)
                .ifPresent(brokerId -> controller.brokerConnectionLost(brokerId, connectionLossGraceMs));
    }

    @Override
    public ApiRegistry apis() {
        return registry;
    }

    /** ApiVersions with the controller's API set (also what answers a too-new ApiVersions request). */
    public ApiVersionsHandler apiVersions() {
        return apiVersions;
    }

    @Override
    public boolean isActive() {
        return raft.leaderId() == nodeId;
    }

    private ApiHandler activeOnly(ApiHandler handler) {
        return request -> {
            if (!isActive()) {
                int leader = raft.leaderId();
                return CompletableFuture.completedFuture(request.errorResponse(
                        new NotControllerException("Controller " + nodeId + " is not the active controller"
                                + (leader >= 0 ? "; controller " + leader + " is" : "; none is known yet"))));
            }
            return handler.handle(request);
        };
    }
}
