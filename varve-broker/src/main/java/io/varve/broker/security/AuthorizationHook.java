package io.varve.broker.security;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.security.authorizer.AclOperation;
import io.varve.security.authorizer.ResourceType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest;

/**
 * The one authorization hook of the request path, between the dispatcher and every handler: what Kafka checks per API,
 * with Kafka's errors. A request whose one resource (a group, a transactional id, the cluster) the principal may not
 * use gets the API's own error response (GROUP_, TRANSACTIONAL_ID_, CLUSTER_ or TOPIC_AUTHORIZATION_FAILED) and its
 * handler never runs; per-topic APIs lose their refused topics before the handler and get them back as errors ({@link
 * TopicAuthorization}); ListGroups and ListTransactions, and Metadata for all topics, leave out what the principal may
 * not describe. An API this table does not name needs CLUSTER_ACTION on the cluster (brokers' own APIs): fail closed.
 *
 * <p>Where Kafka answers a mixed batch entry by entry and this hook refuses it whole (several groups of DescribeGroups,
 * several transactional ids, AddPartitionsToTxn's topics), the client still sees Kafka's error code for the refused
 * resource, only on every entry.
 */
public final class AuthorizationHook {
    private final BrokerAuthorizer authorizer;
    private final TopicAuthorization topics;
    private final DescribeAuthorization describes;

    public AuthorizationHook(BrokerAuthorizer authorizer) {
        this.authorizer = authorizer;
        this.topics = new TopicAuthorization(authorizer);
        this.describes = new DescribeAuthorization(authorizer);
    }

    public BrokerAuthorizer authorizer() {
        return authorizer;
    }

    static CompletableFuture<ApiMessage> refuse(RequestContext r, Errors error, String what) {
        ApiException e = error.exception("Not authorized: " + what);
        return CompletableFuture.completedFuture(r.errorResponse(e));
    }

    public CompletableFuture<ApiMessage> handle(RequestContext r, ApiHandler h) {
        return switch (r.apiKey()) {
            case API_VERSIONS, SASL_HANDSHAKE, SASL_AUTHENTICATE, DESCRIBE_CLUSTER -> h.handle(r);
            // any principal may ask; the token handlers check owners, CREATE_TOKENS and DESCRIBE(_TOKENS)
            case CREATE_DELEGATION_TOKEN, RENEW_DELEGATION_TOKEN, EXPIRE_DELEGATION_TOKEN, DESCRIBE_DELEGATION_TOKEN ->
                h.handle(r);
            // KIP-714: any client may ask for its subscription and push its metrics, as in Kafka
            case GET_TELEMETRY_SUBSCRIPTIONS, PUSH_TELEMETRY -> h.handle(r);
            case PRODUCE -> produce(r, h);
            case OFFSET_FOR_LEADER_EPOCH -> describes.offsetsForLeaderEpoch(r, h);
            case DESCRIBE_TOPIC_PARTITIONS -> describes.describeTopicPartitions(r, h);
            case LIST_CONFIG_RESOURCES -> cluster(r, h, AclOperation.DESCRIBE_CONFIGS);
            case LIST_PARTITION_REASSIGNMENTS -> cluster(r, h, AclOperation.DESCRIBE);
            // KIP-932: the share group's READ (DESCRIBE to describe, DELETE to delete offsets); topic ACLs are not
            // checked on share fetches yet
            case SHARE_GROUP_HEARTBEAT ->
                groupOrRefuse(
                        r,
                        h,
                        AclOperation.READ,
                        ((org.apache.kafka.common.message.ShareGroupHeartbeatRequestData) r.body()).groupId());
            case SHARE_FETCH ->
                groupOrRefuse(
                        r,
                        h,
                        AclOperation.READ,
                        ((org.apache.kafka.common.message.ShareFetchRequestData) r.body()).groupId());
            case SHARE_ACKNOWLEDGE ->
                groupOrRefuse(
                        r,
                        h,
                        AclOperation.READ,
                        ((org.apache.kafka.common.message.ShareAcknowledgeRequestData) r.body()).groupId());
            case SHARE_GROUP_DESCRIBE ->
                allGroups(
                        r,
                        h,
                        AclOperation.DESCRIBE,
                        ((org.apache.kafka.common.message.ShareGroupDescribeRequestData) r.body()).groupIds());
            case DESCRIBE_SHARE_GROUP_OFFSETS ->
                allGroups(
                        r,
                        h,
                        AclOperation.DESCRIBE,
                        ((org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData) r.body())
                                .groups().stream().map(g -> g.groupId()).toList());
            case ALTER_SHARE_GROUP_OFFSETS ->
                groupOrRefuse(
                        r,
                        h,
                        AclOperation.READ,
                        ((org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData) r.body()).groupId());
            case DELETE_SHARE_GROUP_OFFSETS ->
                groupOrRefuse(
                        r,
                        h,
                        AclOperation.DELETE,
                        ((org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData) r.body()).groupId());
            case FETCH -> topics.fetch(r, h);
            case LIST_OFFSETS -> topics.listOffsets(r, h);
            case METADATA -> topics.metadata(r, h);
            case CREATE_TOPICS -> topics.createTopics(r, h);
            case DELETE_TOPICS -> topics.deleteTopics(r, h);
            case OFFSET_COMMIT ->
                group(r, h, AclOperation.READ, ((OffsetCommitRequestData) r.body()).groupId())
                        ? topics.offsetCommit(r, h)
                        : refuse(r, Errors.GROUP_AUTHORIZATION_FAILED, "group");
            case DESCRIBE_CONFIGS -> topics.describeConfigs(r, h);
            case CREATE_PARTITIONS ->
                allTopics(
                        r,
                        h,
                        AclOperation.ALTER,
                        names(((CreatePartitionsRequestData) r.body()).topics(), t -> t.name()));
            case DELETE_RECORDS ->
                allTopics(
                        r,
                        h,
                        AclOperation.DELETE,
                        names(((DeleteRecordsRequestData) r.body()).topics(), t -> t.name()));
            case DESCRIBE_PRODUCERS ->
                allTopics(
                        r,
                        h,
                        AclOperation.READ,
                        names(((DescribeProducersRequestData) r.body()).topics(), t -> t.name()));
            case INCREMENTAL_ALTER_CONFIGS ->
                alterConfigs(
                        r,
                        h,
                        ((IncrementalAlterConfigsRequestData) r.body())
                                .resources().stream()
                                        .allMatch(res -> topics.configResource(
                                                r,
                                                AclOperation.ALTER_CONFIGS,
                                                res.resourceType(),
                                                res.resourceName())));
            case ALTER_CONFIGS ->
                alterConfigs(
                        r,
                        h,
                        ((AlterConfigsRequestData) r.body())
                                .resources().stream()
                                        .allMatch(res -> topics.configResource(
                                                r,
                                                AclOperation.ALTER_CONFIGS,
                                                res.resourceType(),
                                                res.resourceName())));
            case DESCRIBE_LOG_DIRS, DESCRIBE_QUORUM, DESCRIBE_ACLS, DESCRIBE_USER_SCRAM_CREDENTIALS ->
                cluster(r, h, AclOperation.DESCRIBE);
            case DESCRIBE_CLIENT_QUOTAS -> cluster(r, h, AclOperation.DESCRIBE_CONFIGS);
            case ALTER_CLIENT_QUOTAS -> cluster(r, h, AclOperation.ALTER_CONFIGS);
            case CREATE_ACLS,
                    DELETE_ACLS,
                    ALTER_USER_SCRAM_CREDENTIALS,
                    UPDATE_FEATURES,
                    ADD_RAFT_VOTER,
                    REMOVE_RAFT_VOTER,
                    UNREGISTER_BROKER,
                    UNREGISTER_CONTROLLER,
                    ALTER_REPLICA_LOG_DIRS,
                    ELECT_LEADERS,
                    ALTER_PARTITION_REASSIGNMENTS -> cluster(r, h, AclOperation.ALTER);
            case FIND_COORDINATOR -> findCoordinator(r, h);
            case JOIN_GROUP -> groupOrRefuse(r, h, AclOperation.READ, ((JoinGroupRequestData) r.body()).groupId());
            case SYNC_GROUP -> groupOrRefuse(r, h, AclOperation.READ, ((SyncGroupRequestData) r.body()).groupId());
            case HEARTBEAT -> groupOrRefuse(r, h, AclOperation.READ, ((HeartbeatRequestData) r.body()).groupId());
            case LEAVE_GROUP -> groupOrRefuse(r, h, AclOperation.READ, ((LeaveGroupRequestData) r.body()).groupId());
            case CONSUMER_GROUP_HEARTBEAT ->
                groupOrRefuse(r, h, AclOperation.READ, ((ConsumerGroupHeartbeatRequestData) r.body()).groupId());
            case STREAMS_GROUP_HEARTBEAT ->
                groupOrRefuse(
                        r,
                        h,
                        AclOperation.READ,
                        ((org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData) r.body()).groupId());
            case STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE ->
                // READ, as KIP-1331 says: like an offset commit, a push does not modify the group
                groupOrRefuse(
                        r,
                        h,
                        AclOperation.READ,
                        ((org.apache.kafka.common.message.StreamsGroupTopologyDescriptionUpdateRequestData) r.body())
                                .groupId());
            case OFFSET_DELETE ->
                groupOrRefuse(r, h, AclOperation.DELETE, ((OffsetDeleteRequestData) r.body()).groupId());
            case OFFSET_FETCH -> offsetFetch(r, h);
            case DESCRIBE_GROUPS ->
                allGroups(r, h, AclOperation.DESCRIBE, ((DescribeGroupsRequestData) r.body()).groups());
            case CONSUMER_GROUP_DESCRIBE ->
                allGroups(r, h, AclOperation.DESCRIBE, ((ConsumerGroupDescribeRequestData) r.body()).groupIds());
            case STREAMS_GROUP_DESCRIBE ->
                allGroups(
                        r,
                        h,
                        AclOperation.DESCRIBE,
                        ((org.apache.kafka.common.message.StreamsGroupDescribeRequestData) r.body()).groupIds());
            case DELETE_GROUPS ->
                allGroups(r, h, AclOperation.DELETE, ((DeleteGroupsRequestData) r.body()).groupsNames());
            case LIST_GROUPS -> listGroups(r, h);
            case INIT_PRODUCER_ID -> initProducerId(r, h);
            case ADD_PARTITIONS_TO_TXN -> addPartitionsToTxn(r, h);
            case ADD_OFFSETS_TO_TXN -> {
                AddOffsetsToTxnRequestData d = r.body();
                if (!txn(r, d.transactionalId())) {
                    yield refuse(r, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, "transactional id");
                }
                yield groupOrRefuse(r, h, AclOperation.READ, d.groupId());
            }
            case END_TXN ->
                txn(r, ((EndTxnRequestData) r.body()).transactionalId())
                        ? h.handle(r)
                        : refuse(r, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, "transactional id");
            case TXN_OFFSET_COMMIT -> txnOffsetCommit(r, h);
            case DESCRIBE_TRANSACTIONS -> {
                List<String> ids = ((DescribeTransactionsRequestData) r.body()).transactionalIds();
                yield ids.stream()
                                .allMatch(id -> authorizer.authorize(
                                        r, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, id))
                        ? h.handle(r)
                        : refuse(r, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, "transactional id");
            }
            case LIST_TRANSACTIONS ->
                h.handle(r).thenApply(response -> {
                    ((ListTransactionsResponseData) response)
                            .transactionStates()
                            .removeIf(t -> !authorizer.authorize(
                                    r, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, t.transactionalId()));
                    return response;
                });
            default -> cluster(r, h, AclOperation.CLUSTER_ACTION);
        };
    }

    private static <T> List<String> names(Collection<T> entries, java.util.function.Function<T, String> name) {
        return entries.stream().map(name).toList();
    }

    private CompletableFuture<ApiMessage> cluster(RequestContext r, ApiHandler h, AclOperation op) {
        return authorizer.authorizeCluster(r, op)
                ? h.handle(r)
                : refuse(r, Errors.CLUSTER_AUTHORIZATION_FAILED, op.name());
    }

    private boolean group(RequestContext r, ApiHandler h, AclOperation op, String groupId) {
        return groupId != null && authorizer.authorize(r, op, ResourceType.GROUP, groupId);
    }

    private CompletableFuture<ApiMessage> groupOrRefuse(RequestContext r, ApiHandler h, AclOperation op, String id) {
        return group(r, h, op, id) ? h.handle(r) : refuse(r, Errors.GROUP_AUTHORIZATION_FAILED, "group " + id);
    }

    private CompletableFuture<ApiMessage> allGroups(
            RequestContext r, ApiHandler h, AclOperation op, Collection<String> groupIds) {
        return groupIds.stream().allMatch(g -> group(r, h, op, g))
                ? h.handle(r)
                : refuse(r, Errors.GROUP_AUTHORIZATION_FAILED, "group");
    }

    private CompletableFuture<ApiMessage> allTopics(
            RequestContext r, ApiHandler h, AclOperation op, Collection<String> topicNames) {
        return topicNames.stream().allMatch(t -> authorizer.authorize(r, op, ResourceType.TOPIC, t))
                ? h.handle(r)
                : refuse(r, Errors.TOPIC_AUTHORIZATION_FAILED, "topic");
    }

    private CompletableFuture<ApiMessage> alterConfigs(RequestContext r, ApiHandler h, boolean allowed) {
        return allowed ? h.handle(r) : refuse(r, Errors.CLUSTER_AUTHORIZATION_FAILED, "config resource");
    }

    private boolean txn(RequestContext r, String transactionalId) {
        return transactionalId != null
                && authorizer.authorize(r, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactionalId);
    }

    private CompletableFuture<ApiMessage> produce(RequestContext r, ApiHandler h) {
        String transactionalId = ((ProduceRequestData) r.body()).transactionalId();
        if (transactionalId != null && !txn(r, transactionalId)) {
            return refuse(r, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, "transactional id");
        }
        return topics.produce(r, h);
    }

    private CompletableFuture<ApiMessage> initProducerId(RequestContext r, ApiHandler h) {
        String transactionalId = ((InitProducerIdRequestData) r.body()).transactionalId();
        if (transactionalId != null) {
            return txn(r, transactionalId)
                    ? h.handle(r)
                    : refuse(r, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, "transactional id");
        }
        // an idempotent producer: IDEMPOTENT_WRITE on the cluster, or WRITE on some topic (KIP-679)
        return authorizer.authorizeCluster(r, AclOperation.IDEMPOTENT_WRITE)
                        || authorizer.authorizeAny(r, AclOperation.WRITE, ResourceType.TOPIC)
                ? h.handle(r)
                : refuse(r, Errors.CLUSTER_AUTHORIZATION_FAILED, "idempotent write");
    }

    private CompletableFuture<ApiMessage> addPartitionsToTxn(RequestContext r, ApiHandler h) {
        AddPartitionsToTxnRequestData d = r.body();
        if (r.apiVersion() >= 4) {
            // v4+ is the brokers' own (KIP-890): a leader verifying, or adding a partition for a transactions v2
            // producer
            return cluster(r, h, AclOperation.CLUSTER_ACTION);
        }
        for (AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction t : d.transactions()) {
            if (!txn(r, t.transactionalId())) {
                return refuse(r, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, "transactional id");
            }
            for (AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic topic : t.topics()) {
                if (!authorizer.authorize(r, AclOperation.WRITE, ResourceType.TOPIC, topic.name())) {
                    return refuse(r, Errors.TOPIC_AUTHORIZATION_FAILED, "topic " + topic.name());
                }
            }
        }
        return h.handle(r);
    }

    private CompletableFuture<ApiMessage> txnOffsetCommit(RequestContext r, ApiHandler h) {
        TxnOffsetCommitRequestData d = r.body();
        if (!txn(r, d.transactionalId())) {
            return refuse(r, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, "transactional id");
        }
        if (!group(r, h, AclOperation.READ, d.groupId())) {
            return refuse(r, Errors.GROUP_AUTHORIZATION_FAILED, "group " + d.groupId());
        }
        // v6 names topics by id: the check is on the name the image gives the id (an unknown id goes on to the
        // handler, which answers UNKNOWN_TOPIC_ID)
        List<String> names = new ArrayList<>();
        for (TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic t : d.topics()) {
            String name = t.name() != null && !t.name().isEmpty() ? t.name() : authorizer.topicName(t.topicId());
            if (name != null) {
                names.add(name);
            }
        }
        return allTopics(r, h, AclOperation.READ, names);
    }

    private CompletableFuture<ApiMessage> offsetFetch(RequestContext r, ApiHandler h) {
        OffsetFetchRequestData d = r.body();
        List<String> groupIds = d.groups().isEmpty()
                ? java.util.Collections.singletonList(d.groupId())
                : d.groups().stream()
                        .map(OffsetFetchRequestData.OffsetFetchRequestGroup::groupId)
                        .toList();
        return groupIds.stream().allMatch(g -> group(r, h, AclOperation.DESCRIBE, g))
                ? topics.offsetFetch(r, h)
                : refuse(r, Errors.GROUP_AUTHORIZATION_FAILED, "group");
    }

    private CompletableFuture<ApiMessage> listGroups(RequestContext r, ApiHandler h) {
        if (authorizer.authorizeCluster(r, AclOperation.DESCRIBE)) {
            return h.handle(r);
        }
        return h.handle(r).thenApply(response -> {
            ((ListGroupsResponseData) response)
                    .groups()
                    .removeIf(g -> !authorizer.authorize(r, AclOperation.DESCRIBE, ResourceType.GROUP, g.groupId()));
            return response;
        });
    }

    private CompletableFuture<ApiMessage> findCoordinator(RequestContext r, ApiHandler h) {
        FindCoordinatorRequestData d = r.body();
        boolean txnKey = d.keyType() == FindCoordinatorRequest.CoordinatorType.TRANSACTION.id();
        ResourceType type = txnKey ? ResourceType.TRANSACTIONAL_ID : ResourceType.GROUP;
        Errors error = txnKey ? Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED : Errors.GROUP_AUTHORIZATION_FAILED;
        if (d.coordinatorKeys().isEmpty()) {
            return authorizer.authorize(r, AclOperation.DESCRIBE, type, d.key())
                    ? h.handle(r)
                    : refuse(r, error, "key");
        }
        return TopicAuthorization.partial(
                r,
                h,
                d.coordinatorKeys(),
                key -> authorizer.authorize(r, AclOperation.DESCRIBE, type, key),
                (response, refused) -> refused.forEach(key -> ((FindCoordinatorResponseData) response)
                        .coordinators()
                        .add(new FindCoordinatorResponseData.Coordinator()
                                .setKey(key)
                                .setNodeId(-1)
                                .setHost("")
                                .setPort(-1)
                                .setErrorCode(error.code())
                                .setErrorMessage(error.message()))));
    }
}
