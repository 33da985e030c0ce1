package io.varve.it.admin;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.it.TestBroker;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.common.TopicPartitionReplica;
import org.apache.kafka.common.errors.BrokerIdNotRegisteredException;
import org.apache.kafka.common.errors.LogDirNotFoundException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * AlterReplicaLogDirs and UnregisterController on a broker with two log directories, through kafka-clients' Admin:
 * Kafka's answers to bad requests, a replica moved to the other directory, and UnregisterController refused (Varve
 * keeps no controller registrations).
 */
class ReplicaLogDirsAndControllerUnregistrationIT {
    @TempDir
    static Path dir;

    static TestBroker broker;

    @BeforeAll
    static void start() throws Exception {
        Path a = dir.resolve("dir-a");
        Path b = dir.resolve("dir-b");
        broker = TestBroker.start(a, Map.of("log.dirs", a + "," + b));
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static Throwable cause(Map<TopicPartitionReplica, String> moves, TopicPartitionReplica replica)
            throws Exception {
        try (Admin admin = broker.admin()) {
            admin.alterReplicaLogDirs(moves).values().get(replica).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    @Test
    void aReplicaMovesToTheOtherDirectoryAndBadRequestsGetKafkasErrors() throws Exception {
        String topic = uniqueTopic("logdirs");
        try (Admin admin = broker.admin()) {
            createTopic(admin, topic, 1);
        }
        TopicPartitionReplica replica = new TopicPartitionReplica(topic, 0, 1);
        String current;
        String other;
        try (Admin admin = broker.admin()) {
            Map<String, LogDirDescription> dirs = admin.describeLogDirs(java.util.List.of(1))
                    .allDescriptions()
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                    .get(1);
            assertThat(dirs).hasSize(2);
            current = dirs.entrySet().stream()
                    .filter(e -> e.getValue().replicaInfos().keySet().stream()
                            .anyMatch(tp -> tp.topic().equals(topic)))
                    .map(Map.Entry::getKey)
                    .findFirst()
                    .orElseThrow();
            other = dirs.keySet().stream()
                    .filter(d -> !d.equals(current))
                    .findFirst()
                    .orElseThrow();
        }
        assertThat(cause(Map.of(replica, current), replica)).isNull();
        assertThat(cause(Map.of(replica, dir.resolve("not-a-log-dir").toString()), replica))
                .isInstanceOf(LogDirNotFoundException.class);
        TopicPartitionReplica missing = new TopicPartitionReplica(topic + "-none", 0, 1);
        assertThat(cause(Map.of(missing, other), missing)).isInstanceOf(UnknownTopicOrPartitionException.class);
        assertThat(cause(Map.of(replica, other), replica)).isNull();
        try (Admin admin = broker.admin()) {
            org.awaitility.Awaitility.await().atMost(TIMEOUT).untilAsserted(() -> {
                Map<String, LogDirDescription> dirs = admin.describeLogDirs(java.util.List.of(1))
                        .allDescriptions()
                        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                        .get(1);
                assertThat(dirs.get(other).replicaInfos()).anySatisfy((tp, info) -> {
                    assertThat(tp.topic()).isEqualTo(topic);
                    assertThat(info.isFuture()).isFalse();
                });
                assertThat(dirs.get(current).replicaInfos().keySet())
                        .noneMatch(tp -> tp.topic().equals(topic));
            });
        }
    }

    @Test
    void unregisteringAControllerAnswersThatItHasNoRegistration() throws Exception {
        try (Admin admin = broker.admin()) {
            assertThat(admin.unregisterController(1).all())
                    .failsWithin(TIMEOUT)
                    .withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(BrokerIdNotRegisteredException.class)
                    .withMessageContaining("no controller registrations");
        }
    }
}
