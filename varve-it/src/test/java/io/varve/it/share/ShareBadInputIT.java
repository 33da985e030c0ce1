package io.varve.it.share;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.it.RawClient;
import io.varve.it.TestBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Kafka 4.4's error codes for bad share group requests, sent over a raw socket. */
class ShareBadInputIT {
    private static final short V1 = 1;
    private static final short V2 = 2;

    @TempDir
    static Path dataDir;

    static TestBroker broker;
    static Uuid topicId;

    @BeforeAll
    static void start() throws Exception {
        broker = TestBroker.start(dataDir, ShareClients.brokerOverrides());
        try (Admin admin = broker.admin()) {
            topicId = io.varve.it.ClientSupport.createTopic(admin, "bad", 1);
        }
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void aShareFetchWithoutASessionIsShareSessionNotFoundAndAWrongEpochIsInvalid() throws Exception {
        try (RawClient c = new RawClient(broker.port())) {
            ShareFetchResponseData none = c.send(fetch("m1", 3), V1);
            assertThat(none.errorCode()).isEqualTo(Errors.SHARE_SESSION_NOT_FOUND.code());
            ShareFetchResponseData open = c.send(fetch("m1", 0), V1);
            assertThat(open.errorCode()).isEqualTo(Errors.NONE.code());
            ShareFetchResponseData skipped = c.send(fetch("m1", 2), V1);
            assertThat(skipped.errorCode()).isEqualTo(Errors.INVALID_SHARE_SESSION_EPOCH.code());
            ShareFetchResponseData next = c.send(fetch("m1", 1), V1);
            assertThat(next.errorCode()).isEqualTo(Errors.NONE.code());
        }
    }

    @Test
    void acknowledgingARecordNeverAcquiredIsInvalidRecordState() throws Exception {
        try (RawClient c = new RawClient(broker.port())) {
            assertThat(c.<ShareFetchResponseData>send(fetch("m2", 0), V1).errorCode())
                    .isEqualTo(Errors.NONE.code());
            ShareAcknowledgeRequestData ack = new ShareAcknowledgeRequestData()
                    .setGroupId("bad-group")
                    .setMemberId("m2")
                    .setShareSessionEpoch(1);
            ShareAcknowledgeRequestData.AcknowledgeTopic t =
                    new ShareAcknowledgeRequestData.AcknowledgeTopic().setTopicId(topicId);
            ShareAcknowledgeRequestData.AcknowledgePartition p =
                    new ShareAcknowledgeRequestData.AcknowledgePartition().setPartitionIndex(0);
            p.acknowledgementBatches()
                    .add(new ShareAcknowledgeRequestData.AcknowledgementBatch()
                            .setFirstOffset(100)
                            .setLastOffset(101)
                            .setAcknowledgeTypes(List.of((byte) 1)));
            t.partitions().add(p);
            ack.topics().add(t);
            ShareAcknowledgeResponseData response = c.send(ack, V1);
            assertThat(response.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(response.responses().find(topicId).partitions().get(0).errorCode())
                    .isEqualTo(Errors.INVALID_RECORD_STATE.code());
            // ShareAcknowledge cannot open a session
            assertThat(c.<ShareAcknowledgeResponseData>send(ack.setShareSessionEpoch(0), V1)
                            .errorCode())
                    .isEqualTo(Errors.INVALID_SHARE_SESSION_EPOCH.code());
        }
    }

    @Test
    void aClassicMemberCannotJoinAShareGroupAndAnUnknownGroupIsNotFound() throws Exception {
        try (RawClient c = new RawClient(broker.port())) {
            ShareGroupHeartbeatRequestData heartbeat = new ShareGroupHeartbeatRequestData()
                    .setGroupId("owned-by-share")
                    .setMemberId(Uuid.randomUuid().toString())
                    .setMemberEpoch(0)
                    .setSubscribedTopicNames(List.of("bad"));
            // FindCoordinator creates __consumer_offsets; the heartbeat is answered once its partition is loaded
            ShareGroupHeartbeatResponseData[] joined = new ShareGroupHeartbeatResponseData[1];
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
                c.<FindCoordinatorResponseData>send(
                        new FindCoordinatorRequestData()
                                .setKeyType((byte) 0)
                                .setCoordinatorKeys(List.of("owned-by-share")),
                        (short) 4);
                joined[0] = c.send(heartbeat, V1);
                return joined[0].errorCode() == Errors.NONE.code();
            });
            assertThat(joined[0].assignment().topicPartitions().get(0).partitions())
                    .containsExactly(0);
            JoinGroupRequestData join = new JoinGroupRequestData()
                    .setGroupId("owned-by-share")
                    .setMemberId("")
                    .setProtocolType("consumer")
                    .setSessionTimeoutMs(10_000)
                    .setRebalanceTimeoutMs(10_000);
            join.protocols()
                    .add(new JoinGroupRequestData.JoinGroupRequestProtocol()
                            .setName("range")
                            .setMetadata(new byte[0]));
            JoinGroupResponseData refused = c.send(join, (short) 9);
            assertThat(refused.errorCode()).isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL.code());
            ShareGroupDescribeResponseData unknown =
                    c.send(new ShareGroupDescribeRequestData().setGroupIds(List.of("no-such-share-group")), V1);
            assertThat(unknown.groups().get(0).errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
        }
    }

    @Test
    void aV2RenewalThatAsksForRecordsOrAnUnknownAcquireModeIsAnInvalidRequest() throws Exception {
        try (RawClient c = new RawClient(broker.port())) {
            ShareFetchResponseData renewing = c.send(fetch("m4", 0).setIsRenewAck(true), V2);
            assertThat(renewing.errorCode())
                    .as("a renewal fetches nothing: its limits must be 0")
                    .isEqualTo(Errors.INVALID_REQUEST.code());
            ShareFetchResponseData mode = c.send(fetch("m4", 0).setShareAcquireMode((byte) 7), V2);
            assertThat(mode.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
            ShareFetchResponseData recordLimit = c.send(fetch("m4", 0).setShareAcquireMode((byte) 1), V2);
            assertThat(recordLimit.errorCode()).isEqualTo(Errors.NONE.code());
        }
    }

    private static ShareFetchRequestData fetch(String member, int epoch) {
        ShareFetchRequestData f = new ShareFetchRequestData()
                .setGroupId("bad-group")
                .setMemberId(member)
                .setShareSessionEpoch(epoch)
                .setMaxWaitMs(0)
                .setMinBytes(1)
                .setMaxBytes(1 << 20)
                .setMaxRecords(10)
                .setBatchSize(10);
        ShareFetchRequestData.FetchTopic t = new ShareFetchRequestData.FetchTopic().setTopicId(topicId);
        t.partitions().add(new ShareFetchRequestData.FetchPartition().setPartitionIndex(0));
        f.topics().add(t);
        return f;
    }
}
