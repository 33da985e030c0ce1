package io.varve.broker.api.admin;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.storage.FutureReplica;
import io.varve.storage.LogManager;
import io.varve.storage.PartitionLog;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData.DescribableLogDirTopic;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsPartition;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsResult;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsTopic;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DescribeLogDirs: each log directory with the partitions it holds (all, or those asked for), their
 * size on disk, and the volume's total and usable bytes. A current replica's lag is 0 (Kafka's: its high watermark
 * is never above its end); a replica being moved in (AlterReplicaLogDirs) is listed in its destination as a future
 * one, with the offsets it is behind the current replica as its lag.
 */
public final class DescribeLogDirsHandler implements ApiHandler {
    private static final Logger log = LoggerFactory.getLogger(DescribeLogDirsHandler.class);

    private final LogManager logManager;

    public DescribeLogDirsHandler(LogManager logManager) {
        this.logManager = logManager;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        DescribeLogDirsRequestData data = request.body();
        Map<String, Set<Integer>> wanted = null;
        if (data.topics() != null) {
            wanted = new HashMap<>();
            for (DescribableLogDirTopic topic : data.topics()) {
                wanted.computeIfAbsent(topic.topic(), t -> new HashSet<>()).addAll(topic.partitions());
            }
        }
        Map<Path, Map<String, List<DescribeLogDirsPartition>>> byDir = new HashMap<>();
        for (PartitionLog partitionLog : logManager.allLogs()) {
            TopicPartition tp = partitionLog.topicPartition();
            if (wanted == null || wanted.getOrDefault(tp.topic(), Set.of()).contains(tp.partition())) {
                add(byDir, partitionLog.dir().getParent(), tp, partitionLog.sizeBytes(), 0, false);
            }
        }
        for (FutureReplica future : logManager.futureReplicas()) {
            TopicPartition tp = future.topicPartition();
            if (wanted == null || wanted.getOrDefault(tp.topic(), Set.of()).contains(tp.partition())) {
                add(byDir, future.logDir(), tp, future.sizeBytes(), future.offsetLag(), true);
            }
        }
        DescribeLogDirsResponseData response = new DescribeLogDirsResponseData().setErrorCode(Errors.NONE.code());
        for (Path dir : logManager.logDirs()) {
            Path logDir = normalized(dir);
            DescribeLogDirsResult result =
                    new DescribeLogDirsResult().setErrorCode(Errors.NONE.code()).setLogDir(logDir.toString());
            if (!logManager.isOnline(logDir)) {
                // an offline dir is reported with its error and nothing else, as Kafka does
                response.results().add(result.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code()));
                continue;
            }
            byDir.getOrDefault(logDir, Map.of()).forEach((topic, partitions) -> result.topics()
                    .add(new DescribeLogDirsTopic().setName(topic).setPartitions(partitions)));
            try {
                FileStore store = Files.getFileStore(logDir);
                result.setTotalBytes(store.getTotalSpace()).setUsableBytes(store.getUsableSpace());
            } catch (IOException e) {
                log.warn("Cannot read the volume size of log dir {}", logDir, e);
            }
            response.results().add(result);
        }
        return CompletableFuture.completedFuture(response);
    }

    private static void add(
            Map<Path, Map<String, List<DescribeLogDirsPartition>>> byDir,
            Path dir,
            TopicPartition tp,
            long sizeBytes,
            long offsetLag,
            boolean future) {
        byDir.computeIfAbsent(normalized(dir), d -> new TreeMap<>())
                .computeIfAbsent(tp.topic(), t -> new ArrayList<>())
                .add(new DescribeLogDirsPartition()
                        .setPartitionIndex(tp.partition())
                        .setPartitionSize(sizeBytes)
                        .setOffsetLag(offsetLag)
                        .setIsFutureKey(future));
    }

    private static Path normalized(Path dir) {
        return dir.toAbsolutePath().normalize();
    }
}
