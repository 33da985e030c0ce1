package io.varve.it;

import static io.varve.it.QuorumRequests.formatLikeKafkaStorage;
import static io.varve.it.QuorumRequests.metadataOf;
import static io.varve.it.QuorumRequests.quorumOf;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Metadata snapshots (KIP-630) with real processes, with thresholds small enough that a few
 * dozen topics take several snapshots and roll and delete several metadata log segments: a voter that was down for
 * many snapshots catches up by FetchSnapshot, and a single node restarts from its snapshot plus the log's tail.
 */
class MetadataSnapshotIT {
    private static final int[] IDS = {1, 2, 3};
    private static final Duration BOUND = Duration.ofSeconds(90);
    private static final String STORE = "__cluster_metadata-raft";
    private static final String[] SMALL_SNAPSHOTS = {
        "--override", "metadata.log.max.record.bytes.between.snapshots=1024",
        "--override", "internal.metadata.log.segment.bytes=2048"
    };

    @TempDir
    Path workDir;

    private final List<ServerProcess> servers = new ArrayList<>();

    /** The tests' logback keeps io.varve at WARN; the snapshot lines these tests read are INFO. */
    private List<String> snapshotLogging() throws IOException {
        Path config = workDir.resolve("logback-snapshots.xml");
        if (!Files.exists(config)) {
            Files.writeString(
                    config,
                    "<configuration><appender name=\"OUT\" class=\"ch.qos.logback.core.ConsoleAppender\"><encoder>"
                            + "<pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{20} - %msg%n</pattern></encoder>"
                            + "</appender><logger name=\"io.varve.raft.node.MetadataRaftRuntime\" level=\"INFO\"/>"
                            + "<logger name=\"io.varve.metadata\" level=\"INFO\"/><root level=\"WARN\">"
                            + "<appender-ref ref=\"OUT\"/></root></configuration>",
                    UTF_8);
        }
        return List.of("-Dlogback.configurationFile=" + config);
    }

    @AfterEach
    void stopAll() throws InterruptedException {
        for (ServerProcess server : servers) {
            server.close();
        }
    }

    @Test
    void aVoterDownForManySnapshotsCatchesUpByFetchSnapshotAndServesEveryTopicButTheDeletedOne() throws Exception {
        String clusterId = Uuid.randomUuid().toString();
        Map<Integer, Integer> clientPorts = new HashMap<>();
        List<String> voters = new ArrayList<>();
        Map<Integer, Integer> controllerPorts = new HashMap<>();
        for (int id : IDS) {
            clientPorts.put(id, ServerProcess.freePort());
            controllerPorts.put(id, ServerProcess.freePort());
            voters.add(id + "@127.0.0.1:" + controllerPorts.get(id));
        }
        Map<Integer, ServerProcess> byId = new HashMap<>();
        for (int id : IDS) {
            formatLikeKafkaStorage(logDir(id), clusterId, id);
            byId.put(id, startVoter(id, "node-" + id, clientPorts, controllerPorts, voters));
        }
        int leader = awaitOneLeader(clientPorts, Set.of(1, 2, 3));
        try (Admin admin = admin(clientPorts.get(leader))) {
            createTopics(admin, List.of("doomed", "kept"));
            int away = leader == 3 ? 2 : 3;
            for (int id : IDS) {
                int port = clientPorts.get(id);
                await().atMost(BOUND)
                        .ignoreExceptions()
                        .until(() -> Errors.forCode(metadataOf(port, "kept").errorCode()) == Errors.NONE);
            }
            assertThat(byId.get(away).terminate(Duration.ofSeconds(30))).isTrue();
            long awayLogEnd = maxLogEndOffset(clientPorts.get(leader));

            admin.deleteTopics(List.of("doomed")).all().get(30, TimeUnit.SECONDS);
            List<String> created = new ArrayList<>();
            for (int i = 0; i < 80; i++) {
                created.add("while-away-" + i);
            }
            for (int from = 0; from < created.size(); from += 10) {
                createTopics(admin, created.subList(from, from + 10));
            }
            // The leader's log now starts past everything the stopped voter holds: only a snapshot can catch it up.
            await().atMost(BOUND).until(() -> logStartOffset(leader) > awayLogEnd);
            assertThat(snapshotFiles(leader)).isNotEmpty();
            assertThat(segmentFiles(leader)).doesNotContain(String.format("%020d.log", 0));

            ServerProcess restarted =
                    startVoter(away, "node-" + away + "-restarted", clientPorts, controllerPorts, voters);
            int port = clientPorts.get(away);
            List<String> expected = new ArrayList<>(created);
            expected.add("kept");
            await().atMost(BOUND)
                    .pollInterval(Duration.ofMillis(300))
                    .ignoreExceptions()
                    .untilAsserted(() -> {
                        for (String topic : expected) {
                            assertThat(Errors.forCode(metadataOf(port, topic).errorCode()))
                                    .as("%s on node %d", topic, away)
                                    .isEqualTo(Errors.NONE);
                        }
                    });
            assertThat(Errors.forCode(metadataOf(port, "doomed").errorCode()))
                    .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
            assertThat(restarted.output()).contains("fetched from the leader by FetchSnapshot");
            // and its own store holds a snapshot past everything it had when it stopped
            assertThat(snapshotFiles(away)).anySatisfy(name -> assertThat(Long.parseLong(name.substring(0, 20)))
                    .isGreaterThan(awayLogEnd));
            assertThat(restarted.process().isAlive()).as(restarted.output()).isTrue();
        }
    }

    @Test
    void aSingleNodeRestartsFromItsSnapshotPlusTheTailWithEveryTopic() throws Exception {
        Path logDir = workDir.resolve("single");
        Set<String> expected = new TreeSet<>();
        try (ServerProcess server = startSingle("single", logDir).awaitReady();
                Admin admin = admin(server.port())) {
            for (int batch = 0; batch < 6; batch++) {
                List<String> names = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    names.add("t-" + batch + "-" + i);
                }
                createTopics(admin, names);
                expected.addAll(names);
            }
            Path store = logDir.resolve(STORE);
            await().atMost(BOUND).until(() -> startOffsetIn(store) > 0);
            // the tail: records after the newest snapshot, and a deletion among them
            createTopics(admin, List.of("tail-1", "tail-2"));
            expected.addAll(List.of("tail-1", "tail-2"));
            admin.deleteTopics(List.of("t-0-0")).all().get(30, TimeUnit.SECONDS);
            expected.remove("t-0-0");
            assertThat(server.terminate(Duration.ofSeconds(30))).isTrue();
        }
        try (ServerProcess server = startSingle("single-restarted", logDir).awaitReady();
                Admin admin = admin(server.port())) {
            Set<String> listed = new TreeSet<>(admin.listTopics().names().get(30, TimeUnit.SECONDS));
            listed.remove("process-check");
            assertThat(listed).isEqualTo(expected);
            assertThat(server.output()).contains("from disk").contains("Loaded the metadata snapshot");
        }
    }

    private ServerProcess startSingle(String name, Path logDir) throws IOException {
        int port = ServerProcess.freePort();
        List<String> args = new ArrayList<>(
                List.of("--override", "listeners=PLAINTEXT://127.0.0.1:" + port, "--override", "log.dirs=" + logDir));
        args.addAll(List.of(SMALL_SNAPSHOTS));
        ServerProcess server =
                ServerProcess.start(List.of(), snapshotLogging(), workDir, name, port, args.toArray(String[]::new));
        servers.add(server);
        return server;
    }

    private ServerProcess startVoter(
            int id,
            String name,
            Map<Integer, Integer> clientPorts,
            Map<Integer, Integer> controllerPorts,
            List<String> voters)
            throws IOException {
        List<String> args = new ArrayList<>(List.of(
                "--override",
                "node.id=" + id,
                "--override",
                "listeners=PLAINTEXT://127.0.0.1:" + clientPorts.get(id) + ",CONTROLLER://127.0.0.1:"
                        + controllerPorts.get(id),
                "--override",
                "controller.quorum.voters=" + String.join(",", voters),
                "--override",
                "log.dirs=" + logDir(id)));
        args.addAll(List.of(SMALL_SNAPSHOTS));
        ServerProcess server = ServerProcess.start(
                List.of(), snapshotLogging(), workDir, name, clientPorts.get(id), args.toArray(String[]::new));
        servers.add(server);
        return server;
    }

    private Path logDir(int id) {
        return workDir.resolve("node-" + id);
    }

    private long logStartOffset(int id) throws IOException {
        return startOffsetIn(logDir(id).resolve(STORE));
    }

    private static long startOffsetIn(Path store) throws IOException {
        Path file = store.resolve("log-start");
        if (!Files.exists(file)) {
            return 0;
        }
        Properties p = new Properties();
        try (var reader = Files.newBufferedReader(file, UTF_8)) {
            p.load(reader);
        }
        return Long.parseLong(p.getProperty("startOffset", "0").trim());
    }

    private List<String> snapshotFiles(int id) throws IOException {
        return filesEndingWith(id, ".checkpoint");
    }

    private List<String> segmentFiles(int id) throws IOException {
        return filesEndingWith(id, ".log");
    }

    private List<String> filesEndingWith(int id, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(logDir(id).resolve(STORE))) {
            return files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(suffix))
                    .sorted()
                    .toList();
        }
    }

    private static void createTopics(Admin admin, List<String> names) {
        List<NewTopic> topics =
                names.stream().map(n -> new NewTopic(n, 1, (short) 1)).toList();
        // A new leader's broker registers with its own controller once it leads: retry until it can host them.
        await().atMost(BOUND)
                .pollInterval(Duration.ofMillis(300))
                .ignoreExceptions()
                .until(() -> {
                    try {
                        admin.createTopics(topics).all().get(20, TimeUnit.SECONDS);
                    } catch (java.util.concurrent.ExecutionException e) {
                        if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
                            throw e;
                        }
                        // part of the batch was created by an earlier try: create the rest one by one
                        for (NewTopic topic : topics) {
                            try {
                                admin.createTopics(List.of(topic)).all().get(20, TimeUnit.SECONDS);
                            } catch (java.util.concurrent.ExecutionException one) {
                                if (!(one.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
                                    throw one;
                                }
                            }
                        }
                    }
                    return true;
                });
    }

    private static int awaitOneLeader(Map<Integer, Integer> clientPorts, Set<Integer> ids) {
        int[] leader = {-1};
        await().atMost(BOUND)
                .pollInterval(Duration.ofMillis(300))
                .ignoreExceptions()
                .until(() -> {
                    Set<Integer> seen = new TreeSet<>();
                    for (int id : ids) {
                        seen.add(quorumOf(clientPorts.get(id)).leaderId());
                    }
                    leader[0] = seen.iterator().next();
                    return seen.size() == 1 && leader[0] >= 0;
                });
        return leader[0];
    }

    /** The largest log end offset any voter reports to the leader. */
    private static long maxLogEndOffset(int leaderPort) throws IOException {
        return quorumOf(leaderPort).currentVoters().stream()
                .mapToLong(DescribeQuorumResponseData.ReplicaState::logEndOffset)
                .max()
                .orElseThrow();
    }

    private static Admin admin(int port) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        return Admin.create(p);
    }
}
