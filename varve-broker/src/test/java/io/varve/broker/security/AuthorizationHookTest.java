package io.varve.broker.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.ClientFrames;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.AccessControlEntryRecord;
import io.varve.metadata.record.PartitionRecord;
import io.varve.metadata.record.TopicRecord;
import io.varve.security.Principal;
import io.varve.security.authorizer.AclOperation;
import io.varve.security.authorizer.AclPermission;
import io.varve.security.authorizer.PatternType;
import io.varve.security.authorizer.ResourceType;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.message.GetTelemetrySubscriptionsRequestData;
import org.apache.kafka.common.message.GetTelemetrySubscriptionsResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class AuthorizationHookTest {
    private static final Principal ALICE = Principal.user("alice");
    private static final Uuid READABLE_ID = new Uuid(7, 1);
    private static final Uuid SECRET_ID = new Uuid(7, 2);
    private static final Uuid UNKNOWN_ID = new Uuid(7, 3);

    private final AuthorizationHook hook =
            new AuthorizationHook(new BrokerAuthorizer(this::image, Set.of("User:broker"), false));
    private final List<ApiMessage> reachedHandler = new ArrayList<>();

    private MetadataImage image() {
        MetadataDelta delta = new MetadataDelta(MetadataImage.EMPTY);
        delta.replay(acl(ResourceType.TOPIC, "allowed", AclOperation.WRITE));
        delta.replay(acl(ResourceType.GROUP, "app-", AclOperation.DESCRIBE));
        delta.replay(acl(ResourceType.GROUP, "commit-", AclOperation.READ));
        delta.replay(acl(ResourceType.GROUP, "tuned-", AclOperation.DESCRIBE_CONFIGS));
        delta.replay(acl(ResourceType.TRANSACTIONAL_ID, "txn-", AclOperation.WRITE));
        delta.replay(acl(ResourceType.TOPIC, "readable", AclOperation.READ));
        delta.replay(new TopicRecord("readable", READABLE_ID));
        delta.replay(new PartitionRecord(READABLE_ID, 0, new int[] {1}, new int[] {1}, 1, 0, 0));
        delta.replay(new TopicRecord("secret", SECRET_ID));
        delta.replay(new PartitionRecord(SECRET_ID, 0, new int[] {1}, new int[] {1}, 1, 0, 0));
        return delta.apply(1);
    }

    private static AccessControlEntryRecord acl(ResourceType type, String name, AclOperation op) {
        return new AccessControlEntryRecord(
                new Uuid(1, name.hashCode()),
                type.code(),
                name,
                (name.endsWith("-") ? PatternType.PREFIXED : PatternType.LITERAL).code(),
                "User:alice",
                "*",
                op.code(),
                AclPermission.ALLOW.code());
    }

    private static RequestContext request(ApiKeys api, short version, ApiMessage body, Principal principal) {
        return new RequestContext(
                new RequestHeaderData()
                        .setRequestApiKey(api.id)
                        .setRequestApiVersion(version)
                        .setClientId("c"),
                api,
                version,
                ClientFrames.asRequest(api, version, body),
                "SASL_PLAINTEXT",
                new InetSocketAddress("127.0.0.1", 5000),
                0,
                principal);
    }

    private ApiHandler answering(ApiMessage response) {
        return r -> {
            reachedHandler.add(r.data());
            return CompletableFuture.completedFuture(response);
        };
    }

    @Test
    void aProduceToOneRefusedTopicAppendsTheOthersAndAnswersTopicAuthorizationFailedForIt() throws Exception {
        ProduceRequestData produce = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(1000);
        for (String topic : List.of("allowed", "refused")) {
            produce.topicData()
                    .add(new ProduceRequestData.TopicProduceData()
                            .setName(topic)
                            .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData().setIndex(0))));
        }
        ProduceResponseData handlerAnswer = new ProduceResponseData();
        handlerAnswer.responses().add(new ProduceResponseData.TopicProduceResponse().setName("allowed"));
        ProduceResponseData answer = (ProduceResponseData)
                hook.handle(request(ApiKeys.PRODUCE, (short) 11, produce, ALICE), answering(handlerAnswer))
                        .get();
        ProduceRequestData seen = (ProduceRequestData) reachedHandler.get(0);
        assertThat(seen.topicData())
                .extracting(ProduceRequestData.TopicProduceData::name)
                .containsExactly("allowed");
        assertThat(answer.responses())
                .extracting(ProduceResponseData.TopicProduceResponse::name)
                .containsExactlyInAnyOrder("allowed", "refused");
        assertThat(answer.responses()
                        .find("refused", Uuid.ZERO_UUID)
                        .partitionResponses()
                        .get(0)
                        .errorCode())
                .isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
    }

    @Test
    void aGroupRequestWithoutReadOnTheGroupNeverReachesItsHandler() throws Exception {
        JoinGroupRequestData join = new JoinGroupRequestData()
                .setGroupId("app-1")
                .setMemberId("")
                .setProtocolType("consumer")
                .setSessionTimeoutMs(10_000)
                .setRebalanceTimeoutMs(10_000);
        JoinGroupResponseData answer = (JoinGroupResponseData)
                hook.handle(request(ApiKeys.JOIN_GROUP, (short) 9, join, ALICE), answering(new JoinGroupResponseData()))
                        .get();
        assertThat(answer.errorCode())
                .as("DESCRIBE on app- does not grant READ")
                .isEqualTo(Errors.GROUP_AUTHORIZATION_FAILED.code());
        assertThat(reachedHandler).isEmpty();
    }

    @Test
    void listGroupsLeavesOutTheGroupsThePrincipalMayNotDescribe() throws Exception {
        ListGroupsResponseData all = new ListGroupsResponseData();
        all.groups().add(new ListGroupsResponseData.ListedGroup().setGroupId("app-1"));
        all.groups().add(new ListGroupsResponseData.ListedGroup().setGroupId("other"));
        ListGroupsResponseData answer = (ListGroupsResponseData)
                hook.handle(request(ApiKeys.LIST_GROUPS, (short) 4, new ListGroupsRequestData(), ALICE), answering(all))
                        .get();
        assertThat(answer.groups())
                .extracting(ListGroupsResponseData.ListedGroup::groupId)
                .containsExactly("app-1");
    }

    @Test
    void anApiTheTableDoesNotNameNeedsClusterActionWhichSuperUsersHave() throws Exception {
        WriteTxnMarkersRequestData markers = new WriteTxnMarkersRequestData();
        WriteTxnMarkersResponseData refused = (WriteTxnMarkersResponseData) hook.handle(
                        request(ApiKeys.WRITE_TXN_MARKERS, (short) 1, markers, ALICE),
                        answering(new WriteTxnMarkersResponseData()))
                .get();
        assertThat(reachedHandler).isEmpty();
        assertThat(refused).isNotNull();
        hook.handle(
                        request(ApiKeys.WRITE_TXN_MARKERS, (short) 1, markers, Principal.user("broker")),
                        answering(new WriteTxnMarkersResponseData()))
                .get();
        assertThat(reachedHandler).hasSize(1);
    }

    /** Kafka's ControllerApis: a broker's registration and heartbeats need CLUSTER_ACTION, unregistering ALTER. */
    @Test
    void theBrokerLifecycleOnTheControllerListenerNeedsClusterAction() throws Exception {
        for (var api : List.of(
                new Object[] {
                    ApiKeys.BROKER_REGISTRATION,
                    (short) 4,
                    new org.apache.kafka.common.message.BrokerRegistrationRequestData()
                },
                new Object[] {
                    ApiKeys.BROKER_HEARTBEAT,
                    (short) 1,
                    new org.apache.kafka.common.message.BrokerHeartbeatRequestData()
                },
                new Object[] {
                    ApiKeys.UNREGISTER_BROKER,
                    (short) 0,
                    new org.apache.kafka.common.message.UnregisterBrokerRequestData()
                })) {
            ApiKeys key = (ApiKeys) api[0];
            short version = (short) api[1];
            ApiMessage body = (ApiMessage) api[2];
            ApiMessage refused = hook.handle(request(key, version, body, ALICE), answering(null))
                    .get();
            assertThat(ClientFrames.errors(key, version, refused))
                    .as(key.name)
                    .containsExactly(Errors.CLUSTER_AUTHORIZATION_FAILED);
            assertThat(reachedHandler).as(key.name).isEmpty();
            hook.handle(request(key, version, body, Principal.user("broker")), answering(null))
                    .get();
            assertThat(reachedHandler).as(key.name).hasSize(1);
            reachedHandler.clear();
        }
    }

    @Test
    void aConsumersOffsetsForLeaderEpochNeedsDescribeOnEachTopicNotClusterAction() throws Exception {
        OffsetForLeaderEpochRequestData request = new OffsetForLeaderEpochRequestData().setReplicaId(-1);
        for (String topic : List.of("readable", "secret")) {
            request.topics()
                    .add(new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic()
                            .setTopic(topic)
                            .setPartitions(List.of(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition()
                                    .setPartition(0)
                                    .setLeaderEpoch(3))));
        }
        OffsetForLeaderEpochResponseData handlerAnswer = new OffsetForLeaderEpochResponseData();
        handlerAnswer
                .topics()
                .add(new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult().setTopic("readable"));
        OffsetForLeaderEpochResponseData answer = (OffsetForLeaderEpochResponseData) hook.handle(
                        request(ApiKeys.OFFSET_FOR_LEADER_EPOCH, (short) 4, request, ALICE), answering(handlerAnswer))
                .get();

        OffsetForLeaderEpochRequestData seen = (OffsetForLeaderEpochRequestData) reachedHandler.get(0);
        assertThat(seen.topics())
                .extracting(OffsetForLeaderEpochRequestData.OffsetForLeaderTopic::topic)
                .containsExactly("readable");
        assertThat(answer.topics().find("secret").partitions().get(0).errorCode())
                .isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
    }

    @Test
    void describeTopicPartitionsAnswersANamedTopicWithoutDescribeAsRefusedAndLeavesItOutOfAListing() throws Exception {
        DescribeTopicPartitionsRequestData named = new DescribeTopicPartitionsRequestData();
        named.topics().add(new DescribeTopicPartitionsRequestData.TopicRequest().setName("readable"));
        named.topics().add(new DescribeTopicPartitionsRequestData.TopicRequest().setName("secret"));
        DescribeTopicPartitionsResponseData answer = (DescribeTopicPartitionsResponseData) hook.handle(
                        request(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, (short) 0, named, ALICE), answering(bothTopics()))
                .get();
        assertThat(answer.topics().find("readable").errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(answer.topics().find("secret").errorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        assertThat(answer.topics().find("secret").partitions()).isEmpty();

        DescribeTopicPartitionsResponseData listing = (DescribeTopicPartitionsResponseData) hook.handle(
                        request(
                                ApiKeys.DESCRIBE_TOPIC_PARTITIONS,
                                (short) 0,
                                new DescribeTopicPartitionsRequestData(),
                                ALICE),
                        answering(bothTopics()))
                .get();
        assertThat(listing.topics())
                .extracting(DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic::name)
                .containsExactly("readable");
    }

    private static DescribeTopicPartitionsResponseData bothTopics() {
        DescribeTopicPartitionsResponseData all = new DescribeTopicPartitionsResponseData();
        for (String topic : List.of("readable", "secret")) {
            DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic t =
                    new DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic().setName(topic);
            t.partitions().add(new DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition());
            all.topics().add(t);
        }
        return all;
    }

    @Test
    void anyClientMayAskForItsTelemetrySubscription() throws Exception {
        hook.handle(
                        request(
                                ApiKeys.GET_TELEMETRY_SUBSCRIPTIONS,
                                (short) 0,
                                new GetTelemetrySubscriptionsRequestData(),
                                ALICE),
                        answering(new GetTelemetrySubscriptionsResponseData()))
                .get();
        assertThat(reachedHandler).hasSize(1);
    }

    @Test
    void anOffsetCommitByTopicIdIsCheckedOnTheNameBehindEachIdAndAnUnknownIdReachesTheHandler() throws Exception {
        OffsetCommitRequestData commit = new OffsetCommitRequestData()
                .setGroupId("commit-1")
                .setMemberId("")
                .setGenerationIdOrMemberEpoch(-1);
        for (Uuid id : List.of(READABLE_ID, SECRET_ID, UNKNOWN_ID)) {
            commit.topics()
                    .add(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                            .setTopicId(id)
                            .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                    .setPartitionIndex(0)
                                    .setCommittedOffset(5))));
        }
        OffsetCommitResponseData answer = (OffsetCommitResponseData) hook.handle(
                        request(ApiKeys.OFFSET_COMMIT, (short) 10, commit, ALICE),
                        answering(new OffsetCommitResponseData()))
                .get();
        assertThat(((OffsetCommitRequestData) reachedHandler.get(0)).topics())
                .extracting(OffsetCommitRequestData.OffsetCommitRequestTopic::topicId)
                .containsExactly(READABLE_ID, UNKNOWN_ID);
        assertThat(answer.topics()).singleElement().satisfies(t -> {
            assertThat(t.topicId()).isEqualTo(SECRET_ID);
            assertThat(t.partitions().get(0).errorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        });
    }

    @Test
    void anOffsetFetchByTopicIdAnswersTopicAuthorizationFailedForAnIdWhoseTopicMayNotBeDescribed() throws Exception {
        OffsetFetchRequestData.OffsetFetchRequestGroup group =
                new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId("app-1");
        for (Uuid id : List.of(READABLE_ID, SECRET_ID, UNKNOWN_ID)) {
            group.topics()
                    .add(new OffsetFetchRequestData.OffsetFetchRequestTopics()
                            .setTopicId(id)
                            .setPartitionIndexes(List.of(0, 1)));
        }
        OffsetFetchRequestData fetch = new OffsetFetchRequestData().setGroups(new ArrayList<>(List.of(group)));
        OffsetFetchResponseData handlerAnswer = new OffsetFetchResponseData();
        handlerAnswer.groups().add(new OffsetFetchResponseData.OffsetFetchResponseGroup().setGroupId("app-1"));
        OffsetFetchResponseData answer = (OffsetFetchResponseData)
                hook.handle(request(ApiKeys.OFFSET_FETCH, (short) 10, fetch, ALICE), answering(handlerAnswer))
                        .get();
        OffsetFetchRequestData seen = (OffsetFetchRequestData) reachedHandler.get(0);
        assertThat(seen.groups().get(0).topics())
                .extracting(OffsetFetchRequestData.OffsetFetchRequestTopics::topicId)
                .containsExactly(READABLE_ID, UNKNOWN_ID);
        assertThat(answer.groups().get(0).topics()).singleElement().satisfies(t -> {
            assertThat(t.topicId()).isEqualTo(SECRET_ID);
            assertThat(t.partitions())
                    .extracting(OffsetFetchResponseData.OffsetFetchResponsePartitions::errorCode)
                    .containsOnly(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                    .hasSize(2);
        });
    }

    @Test
    void anOffsetFetchOfAllTopicsLeavesOutTopicsThePrincipalMayNotDescribe() throws Exception {
        OffsetFetchRequestData fetch = new OffsetFetchRequestData()
                .setGroups(new ArrayList<>(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                        .setGroupId("app-1")
                        .setTopics(null))));
        OffsetFetchResponseData.OffsetFetchResponseGroup all =
                new OffsetFetchResponseData.OffsetFetchResponseGroup().setGroupId("app-1");
        for (Uuid id : List.of(READABLE_ID, SECRET_ID)) {
            all.topics().add(new OffsetFetchResponseData.OffsetFetchResponseTopics().setTopicId(id));
        }
        OffsetFetchResponseData answer = (OffsetFetchResponseData) hook.handle(
                        request(ApiKeys.OFFSET_FETCH, (short) 10, fetch, ALICE),
                        answering(new OffsetFetchResponseData().setGroups(new ArrayList<>(List.of(all)))))
                .get();
        assertThat(answer.groups().get(0).topics())
                .extracting(OffsetFetchResponseData.OffsetFetchResponseTopics::topicId)
                .containsExactly(READABLE_ID);
    }

    @Test
    void aGroupsConfigsNeedDescribeConfigsOnTheGroupAndOthersAnswerGroupAuthorizationFailed() throws Exception {
        org.apache.kafka.common.message.DescribeConfigsRequestData describe =
                new org.apache.kafka.common.message.DescribeConfigsRequestData();
        for (String group : List.of("tuned-1", "other")) {
            describe.resources()
                    .add(new org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource()
                            .setResourceType((byte) 32)
                            .setResourceName(group));
        }
        org.apache.kafka.common.message.DescribeConfigsResponseData handlerAnswer =
                new org.apache.kafka.common.message.DescribeConfigsResponseData();
        handlerAnswer
                .results()
                .add(new org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult()
                        .setResourceType((byte) 32)
                        .setResourceName("tuned-1"));
        org.apache.kafka.common.message.DescribeConfigsResponseData answer =
                (org.apache.kafka.common.message.DescribeConfigsResponseData) hook.handle(
                                request(ApiKeys.DESCRIBE_CONFIGS, (short) 4, describe, ALICE), answering(handlerAnswer))
                        .get();
        assertThat(answer.results())
                .filteredOn(r -> r.resourceName().equals("other"))
                .singleElement()
                .satisfies(r -> assertThat(r.errorCode()).isEqualTo(Errors.GROUP_AUTHORIZATION_FAILED.code()));
        assertThat(answer.results())
                .filteredOn(r -> r.resourceName().equals("tuned-1"))
                .singleElement()
                .satisfies(r -> assertThat(r.errorCode()).isEqualTo(Errors.NONE.code()));
    }

    @Test
    void aTxnOffsetCommitByTopicIdIsCheckedOnTheNameBehindTheId() throws Exception {
        assertThat(txnOffsetCommitV6(SECRET_ID).errorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        assertThat(reachedHandler).as("READ on secret is missing").isEmpty();
        txnOffsetCommitV6(READABLE_ID);
        assertThat(reachedHandler).as("READ on readable is granted").hasSize(1);
    }

    private org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition
            txnOffsetCommitV6(Uuid topicId) throws Exception {
        org.apache.kafka.common.message.TxnOffsetCommitRequestData commit =
                new org.apache.kafka.common.message.TxnOffsetCommitRequestData()
                        .setTransactionalId("txn-1")
                        .setGroupId("commit-1")
                        .setTopics(List.of(
                                new org.apache.kafka.common.message.TxnOffsetCommitRequestData
                                                .TxnOffsetCommitRequestTopic()
                                        .setTopicId(topicId)
                                        .setPartitions(List.of(new org.apache.kafka.common.message
                                                        .TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition()
                                                .setPartitionIndex(0)))));
        org.apache.kafka.common.message.TxnOffsetCommitResponseData answer =
                (org.apache.kafka.common.message.TxnOffsetCommitResponseData) hook.handle(
                                request(ApiKeys.TXN_OFFSET_COMMIT, (short) 6, commit, ALICE),
                                answering(new org.apache.kafka.common.message.TxnOffsetCommitResponseData()))
                        .get();
        if (answer.topics().isEmpty()) {
            return new org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition();
        }
        return answer.topics().get(0).partitions().get(0);
    }
}
