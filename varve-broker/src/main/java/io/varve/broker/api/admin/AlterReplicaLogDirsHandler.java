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
 * AlterReplicaLogDirs, answered with Kafka's errors, without moving data: Varve does not move a replica between the
 * directories of {@code log.dirs} yet (Kafka copies it as a future replica and swaps when it has caught up). Per
 * partition: a path that is not one of this broker's log dirs is LOG_DIR_NOT_FOUND; an offline one
 * KAFKA_STORAGE_ERROR; an unknown partition UNKNOWN_TOPIC_OR_PARTITION; a partition already in that directory NONE
 * (nothing to do, as in Kafka); one this broker holds no replica of REPLICA_NOT_AVAILABLE (Kafka would remember the
 * directory for a later replica; Varve places new replicas itself); a move to another directory KAFKA_STORAGE_ERROR,
 * with one log line saying moves are not supported. The response has no message field: the broker log carries why.
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
        if (topic == null || topic.partition(tp.partition()) == null) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        Optional<PartitionLog> local = logManager.getLog(tp);
        if (local.isEmpty()) {
            return Errors.REPLICA_NOT_AVAILABLE;
        }
        if (normalized(local.get().dir().getParent()).equals(destination)) {
            return Errors.NONE;
        }
        log.warn(
                "Not moving {} from {} to {}: Varve does not move replicas between log directories yet",
                tp,
                local.get().dir().getParent(),
                destination);
        return Errors.KAFKA_STORAGE_ERROR;
    }

    private static Path normalized(Path dir) {
        return dir.toAbsolutePath().normalize();
    }
}
