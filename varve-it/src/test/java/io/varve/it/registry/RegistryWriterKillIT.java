package io.varve.it.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.ServerProcess;
import io.varve.it.cluster.ClusterNode;
import io.varve.it.cluster.ClusterProcesses;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three combined nodes, each with its registry listener; {@code _schemas} with replication factor 3. Schemas are
 * registered through every node (the two that do not lead {@code _schemas-0} forward to the one that does), then the
 * leader is killed with SIGKILL: registration goes on through the survivors once a new leader is elected, every id
 * given before is served by every node with the same subject, version and text, no id is given twice, and the killed
 * node, restarted on its directory, serves the same state and takes writes again (through the new writer).
 */
class RegistryWriterKillIT {
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final String TOPIC = "_schemas";

    private ClusterProcesses cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** What one registration gave: where, under which id, and the text every node must serve for it. */
    private record Registered(String subject, int version, int id, String schema) {}

    private static String avro(String name) {
        return "{\"type\":\"record\",\"name\":\"" + name + "\",\"fields\":[{\"name\":\"f\",\"type\":\"string\"}]}";
    }

    @Test
    void registrationSurvivesSigkillOfTheWriterAndNoIdIsGivenTwice() throws Exception {
        Map<Integer, Integer> registryPorts = new HashMap<>();
        ClusterProcesses.Builder builder = ClusterProcesses.combined(3)
                .override("broker.session.timeout.ms", "3000")
                .override("broker.heartbeat.interval.ms", "500")
                .override("replica.lag.time.max.ms", "5000")
                .override("varve.http.listeners", "");
        for (int id = 1; id <= 3; id++) {
            int port = ServerProcess.freePort();
            registryPorts.put(id, port);
            builder.overrideFor(id, "varve.schema.registry.listeners", "http://127.0.0.1:" + port);
        }
        cluster = builder.start(ClusterProcesses.workDir("RegistryWriterKillIT"));
        cluster.awaitLeader(BOUND);
        ClusterNode first = cluster.nodes().get(0);
        cluster.awaitBrokers(3, BOUND);
        Map<Integer, RegistryHttp> http = new LinkedHashMap<>();
        registryPorts.forEach((id, port) -> http.put(id, new RegistryHttp(port)));

        // Through every node in turn: the first registration creates _schemas; the non-leaders forward.
        List<Registered> before = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            int nodeId = 1 + i % 3;
            before.add(register(http.get(nodeId), "before-" + i, avro("Before" + i)));
        }
        // A second version of one subject, through another node.
        String evolved = "{\"type\":\"record\",\"name\":\"Before0\",\"fields\":[{\"name\":\"f\",\"type\":\"string\"},"
                + "{\"name\":\"g\",\"type\":\"string\",\"default\":\"\"}]}";
        before.add(register(http.get(2), "before-0", evolved));
        assertThat(before.get(9).version()).isEqualTo(2);
        assertDistinctIds(before);
        for (RegistryHttp node : http.values()) {
            awaitServes(node, before);
        }

        Admin admin = cluster.admin(first);
        await("_schemas-0 has three in-sync replicas")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> partition(admin).isr().size() == 3);
        int writer = partition(admin).leader().id();
        cluster.node(writer).kill();
        List<Integer> survivors =
                http.keySet().stream().filter(id -> id != writer).toList();

        // At once, while the controller has not yet noticed: the forward to the dead writer fails and is retried
        // with the writer that takes over.
        List<Registered> after = new ArrayList<>();
        after.add(register(http.get(survivors.get(0)), "during", avro("During")));
        await("a new leader of _schemas-0")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> {
                    TopicPartitionInfo p = partition(admin);
                    return p.leader() != null && p.leader().id() != writer;
                });
        for (int i = 0; i < 4; i++) {
            after.add(register(http.get(survivors.get(i % 2)), "after-" + i, avro("After" + i)));
        }
        List<Registered> all = new ArrayList<>(before);
        all.addAll(after);
        assertDistinctIds(all);
        int highestBefore = before.stream().mapToInt(Registered::id).max().orElseThrow();
        assertThat(after).allSatisfy(r -> assertThat(r.id()).isGreaterThan(highestBefore));
        for (int id : survivors) {
            awaitServes(http.get(id), all);
        }

        cluster.node(writer).start();
        awaitServes(http.get(writer), all);
        Registered afterRestart = register(http.get(writer), "after-restart", avro("AfterRestart"));
        all.add(afterRestart);
        assertDistinctIds(all);
        for (RegistryHttp node : http.values()) {
            awaitServes(node, all);
        }
    }

    private static Registered register(RegistryHttp node, String subject, String schema) throws Exception {
        RegistryHttp.Reply reply = node.register(subject, null, schema);
        assertThat(reply.status())
                .as("registering %s: %s", subject, reply.body())
                .isEqualTo(200);
        int id = reply.body().get("id").asInt();
        // Read-your-writes: the node that answered serves it at once, with no wait.
        RegistryHttp.Reply latest = node.get("/subjects/" + subject + "/versions/latest");
        assertThat(latest.status())
                .as("%s on the node that registered it: %s", subject, latest.body())
                .isEqualTo(200);
        assertThat(latest.body().get("id").asInt()).isEqualTo(id);
        return new Registered(
                subject,
                latest.body().get("version").asInt(),
                id,
                latest.body().get("schema").asText());
    }

    private static void assertDistinctIds(List<Registered> registered) {
        assertThat(registered.stream().map(Registered::id).toList()).doesNotHaveDuplicates();
    }

    /** Waits until {@code node} serves every one of {@code expected} by id and by subject and version. */
    private static void awaitServes(RegistryHttp node, List<Registered> expected) {
        await("a node serving " + expected.size() + " schemas")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .untilAsserted(() -> {
                    for (Registered r : expected) {
                        RegistryHttp.Reply byId = node.get("/schemas/ids/" + r.id());
                        assertThat(byId.status())
                                .as("id %d: %s", r.id(), byId.body())
                                .isEqualTo(200);
                        assertThat(byId.body().get("schema").asText()).isEqualTo(r.schema());
                        RegistryHttp.Reply byVersion =
                                node.get("/subjects/" + r.subject() + "/versions/" + r.version());
                        assertThat(byVersion.status()).isEqualTo(200);
                        assertThat(byVersion.body().get("id").asInt()).isEqualTo(r.id());
                    }
                });
    }

    private static TopicPartitionInfo partition(Admin admin) throws Exception {
        TopicDescription d = admin.describeTopics(List.of(TOPIC))
                .allTopicNames()
                .get(10, TimeUnit.SECONDS)
                .get(TOPIC);
        return d.partitions().get(0);
    }
}
