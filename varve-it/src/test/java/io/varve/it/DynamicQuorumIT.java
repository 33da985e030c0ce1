package io.varve.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.cli.FormatCommand;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.file.Files;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A dynamic controller quorum (KIP-853) of three combined {@code varve server} processes, driven by Kafka 4.4's own
 * {@code kafka-metadata-quorum}: node 1 is formatted {@code --standalone}, nodes 2 and 3 {@code
 * --no-initial-controllers} and join as observers through {@code controller.quorum.bootstrap.servers}; {@code
 * add-controller} makes them voters, {@code describe --status} and {@code --replication} list all three with their
 * directory ids and endpoints (through the controller listener and through the leader's broker listener), adding a
 * voter twice is refused (DUPLICATE_VOTER), {@code remove-controller} takes one out again, and metadata writes still
 * commit.
 */
class DynamicQuorumIT {
    private static final int[] IDS = {1, 2, 3};
    private static final Duration BOUND = Duration.ofSeconds(90);

    @TempDir
    Path workDir;

    private final List<ServerProcess> servers = new ArrayList<>();
    private final Map<Integer, Integer> clientPorts = new HashMap<>();
    private final Map<Integer, Integer> controllerPorts = new HashMap<>();
    private final Map<Integer, Path> configs = new HashMap<>();

    @AfterEach
    void stopAll() throws InterruptedException {
        for (ServerProcess server : servers) {
            server.close();
        }
    }

    @Test
    void controllersAddedAndRemovedWithKafkasMetadataQuorumToolAndWritesStillCommit() throws Exception {
        String clusterId = Uuid.randomUuid().toString();
        for (int id : IDS) {
            clientPorts.put(id, ServerProcess.freePort());
            controllerPorts.put(id, ServerProcess.freePort());
        }
        for (int id : IDS) {
            configs.put(id, writeConfig(id));
            int formatted = new CommandLine(new FormatCommand())
                    .execute(
                            "--config",
                            configs.get(id).toString(),
                            "--cluster-id",
                            clusterId,
                            id == 1 ? "--standalone" : "--no-initial-controllers");
            assertThat(formatted).as("varve format of node %d", id).isZero();
        }
        for (int id : IDS) {
            servers.add(ServerProcess.start(
                    workDir,
                    "node-" + id,
                    clientPorts.get(id),
                    "--config",
                    configs.get(id).toString()));
        }
        String controller1 = "127.0.0.1:" + controllerPorts.get(1);

        // One voter; nodes 2 and 3 fetch as observers once they found the leader through the bootstrap server.
        String status = awaitTool(
                out -> out.contains("CurrentObservers:") && out.contains("\"id\": 2") && out.contains("\"id\": 3"),
                "--bootstrap-controller",
                controller1,
                "describe",
                "--status");
        assertThat(line(status, "LeaderId:")).endsWith(" 1");
        assertThat(line(status, "CurrentVoters:")).contains("\"id\": 1").doesNotContain("\"id\": 2");

        for (int id : new int[] {2, 3}) {
            // Node 3 is added through node 2's broker listener: a standby's broker forwards AddRaftVoter to the leader.
            String added = awaitTool(
                    out -> out.startsWith("Added controller " + id),
                    id == 2 ? "--bootstrap-controller" : "--bootstrap-server",
                    id == 2 ? controller1 : "127.0.0.1:" + clientPorts.get(2),
                    "--command-config",
                    configs.get(id).toString(),
                    "add-controller");
            assertThat(added)
                    .contains(directoryId(id).toString())
                    .contains("CONTROLLER://127.0.0.1:" + controllerPorts.get(id));
        }

        // Adding a voter again is refused with Kafka's error, and the tool says so.
        ToolRun again = runTool(
                "--bootstrap-controller",
                controller1,
                "--command-config",
                configs.get(2).toString(),
                "add-controller");
        assertThat(again.exitCode()).isEqualTo(1);
        assertThat(again.output()).contains("DuplicateVoterException").contains("replica 2 is already a voter");

        String three = awaitTool(
                out -> voters(out).contains("\"id\": 3"),
                "--bootstrap-controller",
                controller1,
                "describe",
                "--status");
        for (int id : IDS) {
            assertThat(voters(three))
                    .contains("{\"id\": " + id + ", \"directoryId\": \"" + directoryId(id) + "\", \"endpoints\": "
                            + "[\"CONTROLLER://127.0.0.1:" + controllerPorts.get(id) + "\"]}");
        }
        // The same answer through a standby's broker listener: it forwards DescribeQuorum to the leader.
        String viaBroker = awaitTool(
                out -> voters(out).contains("\"id\": 3"),
                "--bootstrap-server",
                "127.0.0.1:" + clientPorts.get(3),
                "describe",
                "--status");
        assertThat(line(viaBroker, "LeaderId:")).endsWith(" 1");

        String replication = awaitTool(
                out -> out.contains("Follower") && rowsOf(out, "Follower") == 2,
                "--bootstrap-controller",
                controller1,
                "describe",
                "--replication");
        assertThat(rowsOf(replication, "Leader")).isEqualTo(1);
        assertThat(replication)
                .contains(directoryId(2).toString())
                .contains(directoryId(3).toString());

        String removed = awaitTool(
                out -> out.startsWith("Removed"),
                "--bootstrap-server", // forwarded by node 2's broker to the leader
                "127.0.0.1:" + clientPorts.get(2),
                "remove-controller",
                "--controller-id",
                "3",
                "--controller-directory-id",
                directoryId(3).toString());
        assertThat(removed).contains("KRaft controller 3");
        String two = awaitTool(
                out -> !voters(out).contains("\"id\": 3"),
                "--bootstrap-controller",
                controller1,
                "describe",
                "--status");
        assertThat(voters(two)).contains("\"id\": 1").contains("\"id\": 2");

        // Writes still commit on the quorum of two: a topic created on the leader reaches node 2's metadata.
        try (Admin admin = admin(clientPorts.get(1))) {
            await().atMost(BOUND)
                    .pollInterval(Duration.ofMillis(300))
                    .ignoreExceptions()
                    .until(() -> {
                        admin.createTopics(List.of(new NewTopic("after-remove", 1, (short) 1)))
                                .all()
                                .get(10, TimeUnit.SECONDS);
                        return true;
                    });
        }
        try (Admin admin = admin(clientPorts.get(2))) {
            await().atMost(BOUND)
                    .pollInterval(Duration.ofMillis(300))
                    .ignoreExceptions()
                    .until(() ->
                            admin.listTopics().names().get(10, TimeUnit.SECONDS).contains("after-remove"));
        }
        for (ServerProcess server : servers) {
            assertThat(server.process().isAlive()).as(server.output()).isTrue();
        }
    }

    private Path writeConfig(int id) throws IOException {
        Properties p = new Properties();
        p.setProperty("node.id", Integer.toString(id));
        p.setProperty("process.roles", "broker,controller");
        p.setProperty(
                "listeners",
                "PLAINTEXT://127.0.0.1:" + clientPorts.get(id) + ",CONTROLLER://127.0.0.1:" + controllerPorts.get(id));
        p.setProperty("controller.listener.names", "CONTROLLER");
        p.setProperty("controller.quorum.bootstrap.servers", "127.0.0.1:" + controllerPorts.get(1));
        p.setProperty("log.dirs", workDir.resolve("data-" + id).toString());
        p.setProperty("varve.metadata.raft.core.enable", "true");
        Path file = workDir.resolve("node-" + id + ".properties");
        try (Writer w = Files.newBufferedWriter(file, UTF_8)) {
            p.store(w, "DynamicQuorumIT node " + id);
        }
        return file;
    }

    private Uuid directoryId(int id) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(workDir.resolve("data-" + id).resolve("meta.properties"), UTF_8)) {
            p.load(r);
        }
        return Uuid.fromString(p.getProperty("directory.id"));
    }

    /** Runs kafka-metadata-quorum until it exits 0 and its output satisfies {@code done}; returns that output. */
    private String awaitTool(java.util.function.Predicate<String> done, String... args) {
        String[] last = {""};
        try {
            await().atMost(BOUND).pollInterval(Duration.ofMillis(500)).until(() -> {
                ToolRun run = runTool(args);
                last[0] = run.exitCode() + "\n" + run.output();
                return run.exitCode() == 0 && done.test(run.output());
            });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(
                    "kafka-metadata-quorum " + String.join(" ", args) + " never gave the expected"
                            + " answer; last run (exit code, output):\n" + last[0],
                    e);
        }
        return last[0].substring(last[0].indexOf('\n') + 1);
    }

    private ToolRun runTool(String... args) throws IOException, InterruptedException {
        return ToolRun.run(workDir, "org.apache.kafka.tools.MetadataQuorumCommand", args)
                .withoutLogLines();
    }

    private static String line(String output, String prefix) {
        return output.lines()
                .filter(l -> l.startsWith(prefix))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + prefix + " in\n" + output))
                .trim();
    }

    private static String voters(String statusOutput) {
        return statusOutput
                .lines()
                .filter(l -> l.startsWith("CurrentVoters:"))
                .findFirst()
                .orElse("");
    }

    private static long rowsOf(String replicationOutput, String status) {
        return replicationOutput.lines().filter(l -> l.trim().endsWith(status)).count();
    }

    private static Admin admin(int port) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        return Admin.create(p);
    }
}
