package io.varve.broker.api.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.protocol.ClientFrames;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.PartitionRecord;
import io.varve.metadata.record.TopicRecord;
import io.varve.storage.LogConfig;
import io.varve.storage.LogManager;
import io.varve.storage.LogManagerConfig;
import io.varve.storage.PartitionLog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.AlterReplicaLogDirsRequestData;
import org.apache.kafka.common.message.AlterReplicaLogDirsRequestData.AlterReplicaLogDir;
import org.apache.kafka.common.message.AlterReplicaLogDirsRequestData.AlterReplicaLogDirTopic;
import org.apache.kafka.common.message.AlterReplicaLogDirsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsPartition;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsResult;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * AlterReplicaLogDirs and DescribeLogDirs over a log manager with two dirs (its mover not running, so a move stays in
 * progress): Kafka's code per partition, the future replica listed in its destination with its lag, and the directory
 * asked for a replica not here yet used when its log is created.
 */
class ReplicaLogDirsHandlersTest {
    private static final Uuid T = new Uuid(1, 2);
    private static final Uuid U = new Uuid(3, 4);

    @TempDir
    Path root;

    private LogManager logs;
    private Path a;
    private Path b;

    private static MetadataImage image() {
        MetadataDelta delta = new MetadataDelta(MetadataImage.EMPTY);
        delta.replay(new TopicRecord("t", T));
        delta.replay(new PartitionRecord(T, 0, new int[] {1}, new int[] {1}, 1, 0, 0));
        delta.replay(new TopicRecord("u", U));
        delta.replay(new PartitionRecord(U, 0, new int[] {1}, new int[] {1}, 1, 0, 0));
        return delta.apply(10);
    }

    @BeforeEach
    void start() {
        a = root.resolve("a").toAbsolutePath();
        b = root.resolve("b").toAbsolutePath();
        logs = new LogManager(
                List.of(a, b), LogConfig.defaults(), LogManagerConfig.defaults().withoutBackgroundTasks(), () -> 1L);
    }

    @AfterEach
    void stop() {
        logs.close();
    }

    private static RequestContext request(ApiKeys api, short version, ApiMessage data) {
        return new RequestContext(
                new RequestHeaderData()
                        .setRequestApiKey(api.id)
                        .setRequestApiVersion(version)
                        .setClientId("admin"),
                api,
                version,
                ClientFrames.asRequest(api, version, data),
                "PLAINTEXT",
                null,
                0);
    }

    private short alter(Path dir, String topic) {
        AlterReplicaLogDirsRequestData data = new AlterReplicaLogDirsRequestData();
        AlterReplicaLogDir move = new AlterReplicaLogDir().setPath(dir.toString());
        move.topics().add(new AlterReplicaLogDirTopic().setName(topic).setPartitions(List.of(0)));
        data.dirs().add(move);
        AlterReplicaLogDirsResponseData response = (AlterReplicaLogDirsResponseData)
                new AlterReplicaLogDirsHandler(logs, ReplicaLogDirsHandlersTest::image)
                        .handle(request(ApiKeys.ALTER_REPLICA_LOG_DIRS, (short) 2, data))
                        .join();
        return response.results().get(0).partitions().get(0).errorCode();
    }

    private DescribeLogDirsPartition described(Path dir, String topic) {
        DescribeLogDirsResponseData response = (DescribeLogDirsResponseData) new DescribeLogDirsHandler(logs)
                .handle(request(ApiKeys.DESCRIBE_LOG_DIRS, (short) 4, new DescribeLogDirsRequestData().setTopics(null)))
                .join();
        DescribeLogDirsResult result = response.results().stream()
                .filter(r -> Path.of(r.logDir()).equals(dir))
                .findFirst()
                .orElseThrow();
        return result.topics().stream()
                .filter(t -> t.name().equals(topic))
                .flatMap(t -> t.partitions().stream())
                .findFirst()
                .orElse(null);
    }

    @Test
    void aMoveStartsWithNoneAndDescribeLogDirsShowsTheFutureReplicaWithItsLag() {
        logs.preferLogDir(new TopicPartition("t", 0), a);
        PartitionLog log = logs.getOrCreateLog(new TopicPartition("t", 0), T, LogConfig.defaults());
        log.appendAsLeader(
                MemoryRecords.withRecords(
                                Compression.NONE,
                                new SimpleRecord("x".getBytes(StandardCharsets.UTF_8)),
                                new SimpleRecord("y".getBytes(StandardCharsets.UTF_8)),
                                new SimpleRecord("z".getBytes(StandardCharsets.UTF_8)))
                        .buffer(),
                0,
                System.currentTimeMillis());

        assertThat(alter(root.resolve("elsewhere"), "t")).isEqualTo(Errors.LOG_DIR_NOT_FOUND.code());
        assertThat(alter(b, "nope")).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(alter(a, "t")).as("already there").isEqualTo(Errors.NONE.code());
        assertThat(alter(b, "t")).isEqualTo(Errors.NONE.code());

        DescribeLogDirsPartition current = described(a, "t");
        assertThat(current.isFutureKey()).isFalse();
        assertThat(current.offsetLag()).isZero();
        DescribeLogDirsPartition future = described(b, "t");
        assertThat(future).isNotNull();
        assertThat(future.isFutureKey()).isTrue();
        assertThat(future.offsetLag()).isEqualTo(3);
    }

    @Test
    void aReplicaNotHereYetIsAnsweredReplicaNotAvailableAndCreatedInTheDirAskedFor() {
        for (int p = 1; p <= 2; p++) { // a holds more logs, so only the request puts the next one there
            logs.preferLogDir(new TopicPartition("t", p), a);
            logs.getOrCreateLog(new TopicPartition("t", p), T, LogConfig.defaults());
        }
        assertThat(alter(a, "u")).isEqualTo(Errors.REPLICA_NOT_AVAILABLE.code());
        PartitionLog created = logs.getOrCreateLog(new TopicPartition("u", 0), U, LogConfig.defaults());
        assertThat(created.dir().getParent()).isEqualTo(a.normalize());
    }
}
