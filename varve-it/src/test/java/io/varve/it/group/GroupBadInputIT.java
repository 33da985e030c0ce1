package io.varve.it.group;

import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.it.ClientSupport;
import io.varve.it.RawClient;
import io.varve.it.SharedBroker;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Group requests that break the rules get Kafka's error codes, over the wire. */
class GroupBadInputIT {
    private static final short JOIN_V = 9;
    private static final short SYNC_V = 5;
    private static final short HEARTBEAT_V = 4;
    private static final short COMMIT_V = 9;
    private static final short FETCH_V = 9;

    @RegisterExtension
    static final SharedBroker shared = new SharedBroker(overrides());

    private static String topic;

    private static Map<String, String> overrides() {
        Map<String, String> o = new HashMap<>(GroupClients.brokerOverrides());
        o.put("group.max.size", "2");
        return o;
    }

    @BeforeAll
    static void createTopicAndCoordinator() throws Exception {
        topic = uniqueTopic("bad-input");
        createTopic(shared.admin(), topic, 2);
        try (RawClient c = client()) {
            assertThat(joinError(c, join("early", "", null, "consumer")))
                    .as("before the first FindCoordinator creates the offsets topic")
                    .isEqualTo(Errors.NOT_COORDINATOR);
            FindCoordinatorResponseData r =
                    c.send(new FindCoordinatorRequestData().setKey("any").setKeyType((byte) 0), (short) 3);
            assertThat(Errors.forCode(r.errorCode())).isEqualTo(Errors.NONE);
            // The offsets topic's coordinators load after FindCoordinator created it (as in Kafka, where a client
            // retries COORDINATOR_LOAD_IN_PROGRESS): the raw requests below do not retry, so wait until every
            // partition answers. 1,000 group ids reach all 50 partitions (a miss has odds of about 1e-9 each).
            List<String> probes = java.util.stream.IntStream.range(0, 1000)
                    .mapToObj(i -> "load-probe-" + i)
                    .toList();
            org.awaitility.Awaitility.await("every __consumer_offsets partition loaded")
                    .atMost(java.time.Duration.ofSeconds(60))
                    .until(() -> c
                            .<org.apache.kafka.common.message.DescribeGroupsResponseData>send(
                                    new org.apache.kafka.common.message.DescribeGroupsRequestData().setGroups(probes),
                                    (short) 5)
                            .groups()
                            .stream()
                            .noneMatch(g -> g.errorCode() == Errors.COORDINATOR_LOAD_IN_PROGRESS.code()));
        }
    }

    private static RawClient client() throws IOException {
        return new RawClient(shared.broker().port());
    }

    private static JoinGroupRequestData join(String group, String memberId, String instanceId, String protocolType) {
        JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
                new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol()
                .setName("range")
                .setMetadata(new byte[0]));
        return new JoinGroupRequestData()
                .setGroupId(group)
                .setMemberId(memberId)
                .setGroupInstanceId(instanceId)
                .setSessionTimeoutMs(5000)
                .setRebalanceTimeoutMs(5000)
                .setProtocolType(protocolType)
                .setProtocols(protocols);
    }

    /** Joins a fresh dynamic member (two round trips, KIP-394) and returns the response of the second join. */
    private static JoinGroupResponseData joinNew(RawClient c, String group) throws IOException {
        JoinGroupResponseData required = c.send(join(group, "", null, "consumer"), JOIN_V);
        assertThat(Errors.forCode(required.errorCode())).isEqualTo(Errors.MEMBER_ID_REQUIRED);
        assertThat(required.memberId()).isNotEmpty();
        return c.send(join(group, required.memberId(), null, "consumer"), JOIN_V);
    }

    private static Errors joinError(RawClient c, JoinGroupRequestData request) throws IOException {
        JoinGroupResponseData r = c.send(request, JOIN_V);
        return Errors.forCode(r.errorCode());
    }

    private static Errors sync(RawClient c, String group, int generation, String memberId) throws IOException {
        SyncGroupResponseData r = c.send(
                new SyncGroupRequestData()
                        .setGroupId(group)
                        .setGenerationId(generation)
                        .setMemberId(memberId)
                        .setProtocolType("consumer")
                        .setProtocolName("range"),
                SYNC_V);
        return Errors.forCode(r.errorCode());
    }

    private static Errors heartbeat(RawClient c, String group, int generation, String memberId, String instanceId)
            throws IOException {
        HeartbeatResponseData r = c.send(
                new HeartbeatRequestData()
                        .setGroupId(group)
                        .setGenerationId(generation)
                        .setMemberId(memberId)
                        .setGroupInstanceId(instanceId),
                HEARTBEAT_V);
        return Errors.forCode(r.errorCode());
    }

    @Test
    void findCoordinatorAnswersGroupsBatchesKeysAndTransactionalIds() throws IOException {
        try (RawClient c = client()) {
            FindCoordinatorResponseData batched = c.send(
                    new FindCoordinatorRequestData().setKeyType((byte) 0).setCoordinatorKeys(List.of("a", "b")),
                    (short) 4);
            assertThat(batched.coordinators())
                    .extracting(FindCoordinatorResponseData.Coordinator::nodeId)
                    .containsExactly(1, 1);
            assertThat(batched.coordinators())
                    .extracting(FindCoordinatorResponseData.Coordinator::port)
                    .containsOnly(shared.broker().port());
            FindCoordinatorResponseData txn =
                    c.send(new FindCoordinatorRequestData().setKey("t").setKeyType((byte) 1), (short) 3);
            assertThat(Errors.forCode(txn.errorCode())).isEqualTo(Errors.NONE);
            assertThat(txn.nodeId()).isEqualTo(1);
            FindCoordinatorResponseData bad =
                    c.send(new FindCoordinatorRequestData().setKey("t").setKeyType((byte) 9), (short) 3);
            assertThat(Errors.forCode(bad.errorCode())).isEqualTo(Errors.INVALID_REQUEST);
        }
    }

    @Test
    void classicProtocolViolationsGetTheirErrors() throws Exception {
        String group = "classic-bad";
        try (RawClient a = client();
                RawClient b = client();
                RawClient c = client()) {
            JoinGroupResponseData first = joinNew(a, group);
            String memberA = first.memberId();
            assertThat(first.generationId()).isEqualTo(1);
            assertThat(first.leader()).isEqualTo(memberA);
            assertThat(sync(a, group, 2, memberA)).isEqualTo(Errors.ILLEGAL_GENERATION);
            assertThat(sync(a, group, 1, memberA)).isEqualTo(Errors.NONE);

            JoinGroupRequestData shortSession =
                    join(group, "", null, "consumer").setSessionTimeoutMs(1);
            assertThat(joinError(c, shortSession)).isEqualTo(Errors.INVALID_SESSION_TIMEOUT);
            assertThat(joinError(c, join(group, "", null, "connect"))).isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);
            assertThat(joinError(c, join(group, "ghost", null, "consumer"))).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
            assertThat(heartbeat(c, group, 1, "ghost", null)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);

            JoinGroupResponseData required = b.send(join(group, "", null, "consumer"), JOIN_V);
            int pendingJoin = b.sendOnly(join(group, required.memberId(), null, "consumer"), JOIN_V);
            org.awaitility.Awaitility.await("b's join starts a rebalance")
                    .atMost(ClientSupport.TIMEOUT)
                    .until(() -> heartbeat(a, group, 1, memberA, null) == Errors.REBALANCE_IN_PROGRESS);
            assertThat(joinError(c, join(group, "", null, "consumer")))
                    .as("group.max.size is 2")
                    .isEqualTo(Errors.GROUP_MAX_SIZE_REACHED);
            JoinGroupResponseData rejoined = a.send(join(group, memberA, null, "consumer"), JOIN_V);
            JoinGroupResponseData joinedB =
                    b.receive(org.apache.kafka.common.protocol.ApiKeys.JOIN_GROUP, JOIN_V, pendingJoin);
            assertThat(rejoined.generationId()).isEqualTo(2);
            assertThat(rejoined.members()).hasSize(2);
            assertThat(joinedB.generationId()).isEqualTo(2);

            OffsetCommitResponseData stale = commit(a, group, 1, memberA, topic);
            assertThat(Errors.forCode(stale.topics().get(0).partitions().get(0).errorCode()))
                    .isEqualTo(Errors.ILLEGAL_GENERATION);
            OffsetCommitResponseData unknownTopic = commit(a, group, 2, memberA, "no-such-topic");
            assertThat(Errors.forCode(
                            unknownTopic.topics().get(0).partitions().get(0).errorCode()))
                    .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);

            DeleteGroupsResponseData deleted =
                    a.send(new DeleteGroupsRequestData().setGroupsNames(List.of(group, "never-existed")), (short) 2);
            assertThat(Errors.forCode(deleted.results().find(group).errorCode()))
                    .isEqualTo(Errors.NON_EMPTY_GROUP);
            assertThat(Errors.forCode(deleted.results().find("never-existed").errorCode()))
                    .isEqualTo(Errors.GROUP_ID_NOT_FOUND);
        }
    }

    private static OffsetCommitResponseData commit(
            RawClient c, String group, int generation, String memberId, String topicName) throws IOException {
        return c.send(
                new OffsetCommitRequestData()
                        .setGroupId(group)
                        .setGenerationIdOrMemberEpoch(generation)
                        .setMemberId(memberId)
                        .setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                                .setName(topicName)
                                .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                        .setPartitionIndex(0)
                                        .setCommittedOffset(1)
                                        .setCommittedMetadata(""))))),
                COMMIT_V);
    }

    @Test
    void aSecondInstanceWithTheSameStaticIdFencesTheFirst() throws IOException {
        String group = "static-bad";
        try (RawClient c = client()) {
            JoinGroupResponseData first = c.send(join(group, "", "instance-1", "consumer"), JOIN_V);
            assertThat(Errors.forCode(first.errorCode())).isEqualTo(Errors.NONE);
            assertThat(sync(c, group, first.generationId(), first.memberId())).isEqualTo(Errors.NONE);
            JoinGroupResponseData second = c.send(join(group, "", "instance-1", "consumer"), JOIN_V);
            assertThat(second.generationId()).isEqualTo(first.generationId());
            assertThat(heartbeat(c, group, first.generationId(), first.memberId(), "instance-1"))
                    .isEqualTo(Errors.FENCED_INSTANCE_ID);
            assertThat(heartbeat(c, group, first.generationId(), second.memberId(), "instance-1"))
                    .isEqualTo(Errors.NONE);
        }
    }

    @Test
    void unknownGroupsAreDeadBeforeDescribeGroupsV6AndNotFoundFromIt() throws IOException {
        try (RawClient c = client()) {
            DescribeGroupsResponseData v5 =
                    c.send(new DescribeGroupsRequestData().setGroups(List.of("nobody")), (short) 5);
            assertThat(v5.groups().get(0).groupState()).isEqualTo("Dead");
            assertThat(Errors.forCode(v5.groups().get(0).errorCode())).isEqualTo(Errors.NONE);
            DescribeGroupsResponseData v6 =
                    c.send(new DescribeGroupsRequestData().setGroups(List.of("nobody")), (short) 6);
            assertThat(Errors.forCode(v6.groups().get(0).errorCode())).isEqualTo(Errors.GROUP_ID_NOT_FOUND);
            OffsetCommitResponseData noGroup = commit(c, "nobody", 3, "m", topic);
            assertThat(Errors.forCode(
                            noGroup.topics().get(0).partitions().get(0).errorCode()))
                    .isEqualTo(Errors.GROUP_ID_NOT_FOUND);
        }
    }

    private static ConsumerGroupHeartbeatRequestData consumerJoin(String group, String memberId) {
        return new ConsumerGroupHeartbeatRequestData()
                .setGroupId(group)
                .setMemberId(memberId)
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(5000)
                .setSubscribedTopicNames(List.of(topic))
                .setTopicPartitions(new ArrayList<>());
    }

    private static Errors consumerHeartbeat(RawClient c, ConsumerGroupHeartbeatRequestData request) throws IOException {
        ConsumerGroupHeartbeatResponseData r = c.send(request, (short) 1);
        return Errors.forCode(r.errorCode());
    }

    @Test
    void consumerProtocolViolationsGetTheirErrors() throws IOException {
        String group = "consumer-bad";
        try (RawClient c = client()) {
            assertThat(consumerHeartbeat(
                            c,
                            consumerJoin(group, "m1")
                                    .setSubscribedTopicNames(null)
                                    .setSubscribedTopicRegex("bad[regex")))
                    .isEqualTo(Errors.INVALID_REGULAR_EXPRESSION);
            assertThat(consumerHeartbeat(c, consumerJoin(group, "m1").setServerAssignor("sticky")))
                    .isEqualTo(Errors.UNSUPPORTED_ASSIGNOR);
            assertThat(consumerHeartbeat(c, consumerJoin(group, "m1").setRebalanceTimeoutMs(-1)))
                    .isEqualTo(Errors.INVALID_REQUEST);
            ConsumerGroupHeartbeatResponseData joined =
                    c.send(consumerJoin(group, "m1").setInstanceId("i1"), (short) 1);
            assertThat(joined.memberEpoch()).isEqualTo(1);
            assertThat(joined.assignment().topicPartitions().get(0).partitions())
                    .containsExactlyInAnyOrder(0, 1);
            assertThat(consumerHeartbeat(c, consumerJoin(group, "m2").setInstanceId("i1")))
                    .isEqualTo(Errors.UNRELEASED_INSTANCE_ID);
            assertThat(consumerHeartbeat(
                            c,
                            new ConsumerGroupHeartbeatRequestData()
                                    .setGroupId(group)
                                    .setMemberId("m1")
                                    .setMemberEpoch(7)))
                    .isEqualTo(Errors.FENCED_MEMBER_EPOCH);

            OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection topics =
                    new OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection();
            topics.add(new OffsetDeleteRequestData.OffsetDeleteRequestTopic()
                    .setName(topic)
                    .setPartitions(
                            List.of(new OffsetDeleteRequestData.OffsetDeleteRequestPartition().setPartitionIndex(0))));
            OffsetDeleteResponseData deleted =
                    c.send(new OffsetDeleteRequestData().setGroupId(group).setTopics(topics), (short) 0);
            assertThat(Errors.forCode(
                            deleted.topics().find(topic).partitions().find(0).errorCode()))
                    .isEqualTo(Errors.GROUP_SUBSCRIBED_TO_TOPIC);

            OffsetFetchResponseData stale = c.send(
                    new OffsetFetchRequestData()
                            .setRequireStable(true)
                            .setGroups(List.of(
                                    new OffsetFetchRequestData.OffsetFetchRequestGroup()
                                            .setGroupId(group)
                                            .setMemberId("m1")
                                            .setMemberEpoch(0)
                                            .setTopics(null),
                                    new OffsetFetchRequestData.OffsetFetchRequestGroup()
                                            .setGroupId("nobody")
                                            .setTopics(null))),
                    FETCH_V);
            assertThat(Errors.forCode(stale.groups().get(0).errorCode())).isEqualTo(Errors.STALE_MEMBER_EPOCH);
            assertThat(Errors.forCode(stale.groups().get(1).errorCode())).isEqualTo(Errors.NONE);

            ListGroupsResponseData consumers =
                    c.send(new ListGroupsRequestData().setTypesFilter(List.of("consumer")), (short) 5);
            assertThat(consumers.groups())
                    .extracting(ListGroupsResponseData.ListedGroup::groupId)
                    .contains(group)
                    .doesNotContain("classic-bad", "static-bad");
            assertThat(consumers.groups())
                    .extracting(ListGroupsResponseData.ListedGroup::groupType)
                    .containsOnly("Consumer");
        }
    }
}
