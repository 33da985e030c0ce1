package io.varve.it;

import static io.varve.it.QuorumRequests.formatLikeKafkaStorage;
import static io.varve.it.QuorumRequests.metadataOf;
import static io.varve.it.QuorumRequests.quorumOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three combined nodes with {@code varve.metadata.raft.core.enable=true} and {@code controller.quorum.voters} naming
 * all three elect one leader over their controller listeners; a standby controller answers NOT_CONTROLLER; a topic
 * created through a standby's broker is forwarded to the active controller and is in the metadata every node answers.
 */
class RaftCoreQuorumIT {
    private static final int[] IDS = {1, 2, 3};
    private static final Duration BOUND = Duration.ofSeconds(60);

    @TempDir
    Path workDir;

    private final List<ServerProcess> servers = new ArrayList<>();

    @AfterEach
    void stopAll() throws InterruptedException {
        for (ServerProcess server : servers) {
            server.close();
        }
    }

    @Test
    void
            threeNodesElectOneLeaderAStandbyAnswersNotControllerATopicCreatedThroughItIsInTheMetadataOfAllThreeAndTheFeaturesAreFinalized()
                    throws Exception {
        String clusterId = Uuid.randomUuid().toString();
        Map<Integer, Integer> clientPorts = new HashMap<>();
        Map<Integer, Integer> controllerPorts = new HashMap<>();
        List<String> voters = new ArrayList<>();
        for (int id : IDS) {
            clientPorts.put(id, ServerProcess.freePort());
            controllerPorts.put(id, ServerProcess.freePort());
            voters.add(id + "@127.0.0.1:" + controllerPorts.get(id));
        }
        for (int id : IDS) {
            Path logDir = workDir.resolve("node-" + id);
            formatLikeKafkaStorage(logDir, clusterId, id);
            servers.add(ServerProcess.start(
                    workDir,
                    "node-" + id,
                    clientPorts.get(id),
                    "--override",
                    "node.id=" + id,
                    "--override",
                    "listeners=PLAINTEXT://127.0.0.1:" + clientPorts.get(id) + ",CONTROLLER://127.0.0.1:"
                            + controllerPorts.get(id),
                    "--override",
                    "controller.quorum.voters=" + String.join(",", voters),
                    "--override",
                    "varve.metadata.raft.core.enable=true",
                    "--override",
                    "log.dirs=" + logDir));
        }

        int leader = awaitOneLeaderAllAgreeOn(clientPorts);
        int standby = leader == IDS[0] ? IDS[1] : IDS[0];
        assertStandbyAnswersNotController(controllerPorts.get(standby));
        String topic = "replicated-metadata";
        try (Admin admin = admin(clientPorts.get(standby))) {
            // Sent to a node whose controller is a standby: its broker forwards it to the active controller.
            await().atMost(BOUND)
                    .pollInterval(Duration.ofMillis(300))
                    .ignoreExceptions()
                    .until(() -> {
                        admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1)))
                                .all()
                                .get(10, TimeUnit.SECONDS);
                        return true;
                    });
        }
        for (int id : IDS) {
            int port = clientPorts.get(id);
            await().atMost(BOUND)
                    .pollInterval(Duration.ofMillis(200))
                    .ignoreExceptions()
                    .untilAsserted(() -> {
                        MetadataResponseData.MetadataResponseTopic described = metadataOf(port, topic);
                        assertThat(Errors.forCode(described.errorCode()))
                                .as("node %d", id)
                                .isEqualTo(Errors.NONE);
                        assertThat(described.partitions()).hasSize(2);
                        // every node registered through the active controller: any of them may lead
                        assertThat(described.partitions())
                                .allSatisfy(p -> assertThat(p.leaderId()).isIn(1, 2, 3));
                    });
        }
        // A new cluster of several voters: its first active controller finalized metadata.version, seen by every node.
        for (int id : IDS) {
            try (Admin admin = admin(clientPorts.get(id))) {
                await().atMost(BOUND)
                        .pollInterval(Duration.ofMillis(200))
                        .ignoreExceptions()
                        .untilAsserted(() -> assertThat(admin.describeFeatures()
                                        .featureMetadata()
                                        .get(10, TimeUnit.SECONDS)
                                        .finalizedFeatures())
                                .as("node %d", id)
                                .containsKey("metadata.version"));
            }
        }
        for (ServerProcess server : servers) {
            assertThat(server.process().isAlive()).as(server.output()).isTrue();
        }
    }

    /** A controller that is not the active one refuses controller requests with NOT_CONTROLLER, which clients retry. */
    private static void assertStandbyAnswersNotController(int controllerPort) throws IOException {
        CreateTopicsRequestData create = new CreateTopicsRequestData().setTimeoutMs(10_000);
        create.topics()
                .add(new CreateTopicsRequestData.CreatableTopic()
                        .setName("sent-to-a-standby")
                        .setNumPartitions(1)
                        .setReplicationFactor((short) 1));
        await().atMost(BOUND)
                .pollInterval(Duration.ofMillis(300))
                .ignoreExceptions() // its controller APIs join the listener once the node has started
                .untilAsserted(() -> {
                    try (RawClient client = new RawClient(controllerPort)) {
                        CreateTopicsResponseData answer = client.send(create, (short) 7);
                        assertThat(Errors.forCode(answer.topics()
                                        .find("sent-to-a-standby")
                                        .errorCode()))
                                .isEqualTo(Errors.NOT_CONTROLLER);
                    }
                });
    }

    private int awaitOneLeaderAllAgreeOn(Map<Integer, Integer> clientPorts) {
        int[] leader = {-1};
        await().atMost(BOUND)
                .pollInterval(Duration.ofMillis(300))
                .ignoreExceptions()
                .until(() -> {
                    List<Integer> seen = new ArrayList<>();
                    List<Integer> epochs = new ArrayList<>();
                    for (int id : IDS) {
                        DescribeQuorumResponseData.PartitionData quorum = quorumOf(clientPorts.get(id));
                        seen.add(quorum.leaderId());
                        epochs.add(quorum.leaderEpoch());
                    }
                    leader[0] = seen.get(0);
                    return seen.get(0) >= 0
                            && seen.stream().distinct().count() == 1
                            && epochs.stream().distinct().count() == 1;
                });
        return leader[0];
    }

    private static Admin admin(int port) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        return Admin.create(p);
    }
}
