package io.varve.broker.api.admin;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.TopicImage;
import io.varve.storage.LogManager;
import io.varve.storage.PartitionLog;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.message.AlterReplicaLogDirsRequestData;
import org.apache.kafka.common.message.AlterReplicaLogDirsRequestData.AlterReplicaLogDir;
import org.apache.kafka.common.message.AlterReplicaLogDirsRequestData.AlterReplicaLogDirTopic;
import org.apache.kafka.common.message.AlterReplicaLogDirsResponseData;
import org.apache.kafka.common.message.AlterReplicaLogDirsResponseData.AlterReplicaLogDirPartitionResult;
import org.apache.kafka.common.message.AlterReplicaLogDirsResponseData.AlterReplicaLogDirTopicResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * AlterReplicaLogDirs (v1-2): moves a replica to another directory of this broker's {@code log.dirs} while it stays
 * online ({@link LogManager#moveReplica}: a future replica copies the log and catches up, then takes over). Per
 * partition, in Kafka's order: a path that is not one of this broker's log dirs is LOG_DIR_NOT_FOUND; an offline one
 * KAFKA_STORAGE_ERROR; then the directory is remembered for a replica created here later (Kafka does so); an unknown
 * partition is UNKNOWN_TOPIC_OR_PARTITION; one this broker holds no replica of REPLICA_NOT_AVAILABLE (the tools retry
 * until it exists); a partition already in that directory NONE (a move elsewhere in progress is given up); a move
 * while some log dir is offline, or of a tiered topic's replica, KAFKA_STORAGE_ERROR; a move started NONE. The
 * response has no message field: the broker log carries why.
 */
public final class AlterReplicaLogDirsHandler implements ApiHandler {
    private static final Logger log = LoggerFactory.getLogger(AlterReplicaLogDirsHandler.class);

    private final LogManager logManager;
    private final Supplier<MetadataImage> image;

    public AlterReplicaLogDirsHandler(LogManager logManager, Supplier<MetadataImage> image) {
        this.logManager = logManager;
        this.image = image;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        AlterReplicaLogDirsRequestData data = request.body();
        Map<String, AlterReplicaLogDirTopicResult> byTopic = new LinkedHashMap<>();
        for (AlterReplicaLogDir dir : data.dirs()) {
            Path destination = normalized(Path.of(dir.path()));
            Optional<Path> known = logManager.logDirs().stream()
                    .map(AlterReplicaLogDirsHandler::normalized)
                    .filter(destination::equals)
                    .findFirst();
            for (AlterReplicaLogDirTopic topic : dir.topics()) {
                AlterReplicaLogDirTopicResult result = byTopic.computeIfAbsent(
                        topic.name(), name -> new AlterReplicaLogDirTopicResult().setTopicName(name));
                for (int partition : topic.partitions()) {
                    Errors error = decide(new TopicPartition(topic.name(), partition), destination, known.isPresent());
                    result.partitions()
                            .add(new AlterReplicaLogDirPartitionResult()
                                    .setPartitionIndex(partition)
                                    .setErrorCode(error.code()));
                }
            }
        }
        return CompletableFuture.completedFuture(
                new AlterReplicaLogDirsResponseData().setResults(new java.util.ArrayList<>(byTopic.values())));
    }

    private Errors decide(TopicPartition tp, Path destination, boolean knownDir) {
        if (!knownDir) {
            return Errors.LOG_DIR_NOT_FOUND;
        }
        if (!logManager.isOnline(destination)) {
            return Errors.KAFKA_STORAGE_ERROR;
        }
        TopicImage topic = image.get().topics().getTopic(tp.topic());
        Optional<PartitionLog> local = logManager.getLog(tp);
        if (local.isEmpty()) {
            logManager.preferLogDir(tp, destination);
        }
        if (topic == null || topic.partition(tp.partition()) == null) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        if (local.isEmpty()) {
            return Errors.REPLICA_NOT_AVAILABLE;
        }
        try {
            logManager.moveReplica(tp, destination);
            return Errors.NONE;
        } catch (KafkaStorageException e) {
            log.warn("Not moving {} to {}: {}", tp, destination, e.getMessage());
            return Errors.KAFKA_STORAGE_ERROR;
        } catch (IllegalArgumentException e) {
            return Errors.REPLICA_NOT_AVAILABLE; // deleted meanwhile
        }
    }

    private static Path normalized(Path dir) {
        return dir.toAbsolutePath().normalize();
    }
}
