package io.varve.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.varve.it.ToolRun;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.PartitionReassignment;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ElectionNotNeededException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.NoReassignmentInProgressException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The controller's replication admin APIs on a real three-node cluster, through Kafka's Admin client and Kafka 4.4's
 * own tools (kafka-reassign-partitions, kafka-topics): ElectLeaders, AlterPartitionReassignments and
 * ListPartitionReassignments (answered by the active controller, forwarded by the other nodes), DescribeTopicPartitions
 * with its eligible leader replicas, and the errors of bad requests. A reassignment that adds a replica completes only
 * once the leader reports the new replica in sync: until then it is listed and can be cancelled, and the checks
 * accept either side of that race.
 */
class ReassignmentAndElectionIT {
    private static final Duration BOUND = Duration.ofSeconds(60);

    private ClusterProcesses cluster;
    private Admin admin;
    private Path workDir;

    @BeforeEach
    void start() throws Exception {
        workDir = ClusterProcesses.workDir("ReassignmentAndElectionIT");
        cluster = ClusterProcesses.combined(3).start(workDir);
        QuorumView quorum = cluster.awaitLeader(ControllerKillIT.BOUND);
        // Ask a node that is not the active controller: every write below is forwarded.
        ClusterNode follower =
                cluster.liveControllersExcept(cluster.node(quorum.leaderId())).get(0);
        admin = cluster.admin(follower);
        await("three brokers registered and unfenced")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> {
                    admin.createTopics(List.of(new NewTopic("on-1", Map.of(0, List.of(1)))))
                            .all()
                            .get(10, TimeUnit.SECONDS);
                    return true;
                });
        for (ClusterNode node : cluster.nodes()) {
            // Each node serves describes from its own image, which follows the controller's by a moment.
            await("on-1-0 led by broker 1 in the metadata of " + node)
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> NodeRequests.partitionLeader(node, "on-1", 0).equals(Optional.of(1)));
        }
    }

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static TopicPartition onOne() {
        return new TopicPartition("on-1", 0);
    }

    @Test
    void preferredElectionOfALeadingPreferredReplicaIsNotNeededAndUnknownPartitionsAreNamed() throws Exception {
        Map<TopicPartition, Optional<Throwable>> results = admin.electLeaders(
                        ElectionType.PREFERRED, Set.of(onOne(), new TopicPartition("nope", 0)))
                .partitions()
                .get(30, TimeUnit.SECONDS);

        assertThat(results.get(onOne())).containsInstanceOf(ElectionNotNeededException.class);
        assertThat(results.get(new TopicPartition("nope", 0)))
                .containsInstanceOf(UnknownTopicOrPartitionException.class);
        ToolRun tool = runTool(
                "org.apache.kafka.tools.LeaderElectionCommand",
                "--bootstrap-server",
                bootstrap(),
                "--election-type",
                "PREFERRED",
                "--topic",
                "on-1",
                "--partition",
                "0");
        assertThat(tool.output()).contains("Valid replica already elected for partitions on-1-0");
    }

    @Test
    void aReassignmentIsListedUntilItCompletesOrIsCancelledAndBadTargetsAreRefused() throws Exception {
        admin.alterPartitionReassignments(Map.of(onOne(), Optional.of(new NewPartitionReassignment(List.of(2)))))
                .all()
                .get(30, TimeUnit.SECONDS);

        Map<TopicPartition, PartitionReassignment> listed =
                admin.listPartitionReassignments().reassignments().get(30, TimeUnit.SECONDS);
        if (listed.containsKey(onOne())) {
            assertThat(listed.get(onOne()).replicas()).containsExactly(2, 1);
            assertThat(listed.get(onOne()).addingReplicas()).containsExactly(2);
            assertThat(listed.get(onOne()).removingReplicas()).containsExactly(1);
            // With replica fetchers the new replica may catch up, and complete the reassignment, before the cancel.
            boolean cancelled = cancel(onOne());
            assertThat(admin.listPartitionReassignments().reassignments().get(30, TimeUnit.SECONDS))
                    .doesNotContainKey(onOne());
            awaitReplicas(onOne(), cancelled ? List.of(1) : List.of(2));
        } else {
            awaitReplicas(onOne(), List.of(2));
        }

        assertThatThrownBy(() -> admin.alterPartitionReassignments(Map.of(onOne(), Optional.empty()))
                        .all()
                        .get(30, TimeUnit.SECONDS))
                .hasCauseInstanceOf(NoReassignmentInProgressException.class);
        for (List<Integer> bad : List.of(List.of(2, 2), List.of(9))) {
            assertThatThrownBy(() -> admin.alterPartitionReassignments(
                                    Map.of(onOne(), Optional.of(new NewPartitionReassignment(bad))))
                            .all()
                            .get(30, TimeUnit.SECONDS))
                    .as("target " + bad)
                    .hasCauseInstanceOf(InvalidReplicaAssignmentException.class);
        }
    }

    @Test
    void moreReplicasThanBrokersIsInvalidReplicationFactor() {
        assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("too-many", 1, (short) 4)))
                        .all()
                        .get(30, TimeUnit.SECONDS))
                .hasCauseInstanceOf(InvalidReplicationFactorException.class);
    }

    @Test
    void describeTopicsReportsLeaderIsrAndAnEmptyElr() throws Exception {
        TopicDescription description = admin.describeTopics(List.of("on-1"))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS)
                .get("on-1");

        assertThat(description.partitions()).singleElement().satisfies(p -> {
            assertThat(p.leader().id()).isEqualTo(1);
            assertThat(p.isr()).extracting(node -> node.id()).containsExactly(1);
            assertThat(p.elr()).isEmpty();
            assertThat(p.lastKnownElr()).isEmpty();
        });
        ToolRun topics = runTool(
                "org.apache.kafka.tools.TopicCommand",
                "--bootstrap-server",
                bootstrap(),
                "--describe",
                "--topic",
                "on-1");
        assertThat(topics.exitCode()).as(topics.output()).isZero();
        assertThat(topics.output()).contains("Leader: 1").contains("Isr: 1").contains("Elr:");
    }

    @Test
    void kafkaReassignPartitionsGeneratesExecutesWithAThrottleAndVerifies() throws Exception {
        ToolRun generate = runTool(
                REASSIGN,
                "--bootstrap-server",
                bootstrap(),
                "--generate",
                "--topics-to-move-json-file",
                ToolRun.inputFile(workDir, "topics.json", "{\"version\":1,\"topics\":[{\"topic\":\"on-1\"}]}"),
                "--broker-list",
                "2,3");
        assertThat(generate.exitCode()).as(generate.output()).isZero();
        assertThat(generate.output())
                .contains("Current partition replica assignment")
                .contains("\"on-1\"");

        String plan = ToolRun.inputFile(
                workDir,
                "plan.json",
                "{\"version\":1,\"partitions\":[{\"topic\":\"on-1\",\"partition\":0,\"replicas\":[3],"
                        + "\"log_dirs\":[\"any\"]}]}");
        ToolRun execute = runTool(
                REASSIGN,
                "--bootstrap-server",
                bootstrap(),
                "--execute",
                "--reassignment-json-file",
                plan,
                "--throttle",
                "1000000");
        assertThat(execute.exitCode()).as(execute.output()).isZero();
        assertThat(execute.output()).contains("Successfully started partition reassignment");

        Config broker1 = admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.BROKER, "1")))
                .all()
                .get(30, TimeUnit.SECONDS)
                .get(new ConfigResource(ConfigResource.Type.BROKER, "1"));
        assertThat(broker1.get("leader.replication.throttled.rate").value()).isEqualTo("1000000");

        ToolRun verify =
                runTool(REASSIGN, "--bootstrap-server", bootstrap(), "--verify", "--reassignment-json-file", plan);
        assertThat(verify.output())
                .containsAnyOf(
                        "Reassignment of partition on-1-0 is still in progress",
                        "Reassignment of partition on-1-0 is completed");
        if (verify.output().contains("still in progress")) {
            ToolRun cancel =
                    runTool(REASSIGN, "--bootstrap-server", bootstrap(), "--cancel", "--reassignment-json-file", plan);
            assertThat(cancel.exitCode()).as(cancel.output()).isZero();
            // With replica fetchers the reassignment may have completed between --verify and --cancel.
            awaitReplicas(
                    onOne(),
                    cancel.output().contains("Successfully cancelled partition reassignment")
                            ? List.of(1)
                            : List.of(3));
        } else {
            awaitReplicas(onOne(), List.of(3));
        }
    }

    /** Cancels the partition's reassignment: true if it was cancelled, false if it had completed already. */
    private boolean cancel(TopicPartition partition) throws Exception {
        try {
            admin.alterPartitionReassignments(Map.of(partition, Optional.empty()))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof NoReassignmentInProgressException) {
                return false;
            }
            throw e;
        }
    }

    private static final String REASSIGN = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand";

    private String bootstrap() {
        return cluster.nodes().get(1).bootstrap();
    }

    /** Describes answer from the image of whichever node is asked: it follows the controller's by a moment. */
    private void awaitReplicas(TopicPartition partition, List<Integer> replicas) {
        await(partition + " on " + replicas)
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptions()
                .until(() -> replicasOf(partition).equals(replicas));
    }

    private List<Integer> replicasOf(TopicPartition partition) throws ExecutionException, InterruptedException {
        return admin
                .describeTopics(List.of(partition.topic()))
                .allTopicNames()
                .get()
                .get(partition.topic())
                .partitions()
                .get(partition.partition())
                .replicas()
                .stream()
                .map(node -> node.id())
                .toList();
    }

    /** Runs a Kafka 4.4 tool's main class in its own JVM; its output without the admin client's log lines. */
    private ToolRun runTool(String mainClass, String... args) throws IOException, InterruptedException {
        return ToolRun.run(workDir, Duration.ofSeconds(90), mainClass, List.of(args))
                .withoutLogLines();
    }
}
