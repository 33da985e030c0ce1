package io.varve.broker.replica;

import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.storage.LogConfig;
import io.varve.storage.LogManager;
import io.varve.storage.PartitionLog;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the local logs in step with the partitions an image puts on this broker: creates the missing ones with their
 * topic's config, deletes those of removed (or re-created) topics, and remembers the ones that could not be opened or
 * created (no descriptor free, a failed log dir) to answer their retriable error and retry them. Called under the
 * replica manager's monitor.
 */
final class LocalLogs {
    private static final Logger log = LoggerFactory.getLogger(LocalLogs.class);

    private final LogManager logManager;
    private final BiFunction<MetadataSnapshot, Map<String, String>, LogConfig> logConfigs;
    /** Partitions this broker should hold whose log could not be opened or created, with why. */
    private final ConcurrentHashMap<TopicPartition, KafkaStorageException> unavailable = new ConcurrentHashMap<>();

    LocalLogs(LogManager logManager, BiFunction<MetadataSnapshot, Map<String, String>, LogConfig> logConfigs) {
        this.logManager = logManager;
        this.logConfigs = logConfigs;
    }

    /** Deletes the logs not in {@code wanted} (partition to topic id) and creates the missing ones. Never throws. */
    void reconcile(MetadataSnapshot snapshot, Map<TopicPartition, Uuid> wanted) {
        for (PartitionLog existing : logManager.openLogs()) {
            Uuid id = wanted.get(existing.topicPartition());
            if (id == null || !id.equals(existing.topicId())) {
                log.info(
                        "Deleting log of {} (topic id {}): no longer in the metadata image",
                        existing.topicPartition(),
                        existing.topicId());
                deleteQuietly(existing.topicPartition());
            }
        }
        // A log start-up has not opened yet is checked against its topic id when it opens.
        for (TopicPartition notOpened : logManager.deferredPartitions()) {
            if (!wanted.containsKey(notOpened)) {
                log.info("Deleting log of {}: no longer in the metadata image", notOpened);
                deleteQuietly(notOpened);
            }
        }
        Map<String, LogConfig> configByTopic = new HashMap<>();
        Map<TopicPartition, LogManager.LogSpec> specs = new HashMap<>();
        for (Map.Entry<TopicPartition, Uuid> e : wanted.entrySet()) {
            TopicInfo topic = snapshot.topicsByName().get(e.getKey().topic());
            LogConfig config =
                    configByTopic.computeIfAbsent(topic.name(), n -> logConfigs.apply(snapshot, topic.configs()));
            specs.put(e.getKey(), new LogManager.LogSpec(e.getValue(), config));
        }
        unavailable.keySet().retainAll(specs.keySet());
        createLogs(specs);
    }

    /** Tries again to open or create the logs that failed; true when there were any to try. */
    boolean retry(MetadataSnapshot snapshot) {
        if (unavailable.isEmpty()) {
            return false;
        }
        Map<String, LogConfig> configByTopic = new HashMap<>();
        Map<TopicPartition, LogManager.LogSpec> specs = new HashMap<>();
        for (TopicPartition tp : List.copyOf(unavailable.keySet())) {
            TopicInfo topic = snapshot.topicsByName().get(tp.topic());
            if (topic == null || !topic.partitions().containsKey(tp.partition())) {
                unavailable.remove(tp);
                continue;
            }
            LogConfig config =
                    configByTopic.computeIfAbsent(topic.name(), n -> logConfigs.apply(snapshot, topic.configs()));
            specs.put(tp, new LogManager.LogSpec(topic.id(), config));
        }
        if (specs.isEmpty()) {
            return false;
        }
        createLogs(specs);
        return true;
    }

    /** Why the log of {@code tp} could not be opened or created, or null. */
    KafkaStorageException failure(TopicPartition tp) {
        return unavailable.get(tp);
    }

    int unavailableCount() {
        return unavailable.size();
    }

    /** Creates the missing logs and applies the topic id and config to the others (deferred ones when they open). */
    private void createLogs(Map<TopicPartition, LogManager.LogSpec> specs) {
        Map<TopicPartition, KafkaStorageException> failed;
        try {
            failed = logManager.getOrCreateLogs(specs);
        } catch (RuntimeException e) {
            failed = new HashMap<>();
            for (TopicPartition tp : specs.keySet()) {
                if (logManager.openLogIfPresent(tp).isEmpty()) {
                    failed.put(tp, e instanceof KafkaStorageException kse ? kse : new KafkaStorageException(e));
                }
            }
        }
        int before = unavailable.size();
        for (TopicPartition tp : specs.keySet()) {
            if (!failed.containsKey(tp)) {
                unavailable.remove(tp);
            }
        }
        unavailable.putAll(failed);
        if (!failed.isEmpty() && unavailable.size() != before) {
            Map.Entry<TopicPartition, KafkaStorageException> first =
                    failed.entrySet().iterator().next();
            log.warn(
                    "{} partition logs could not be opened or created (for example {}: {}); they answer"
                            + " KAFKA_STORAGE_ERROR and are retried",
                    unavailable.size(),
                    first.getKey(),
                    first.getValue().getMessage());
        } else if (failed.isEmpty() && before > 0 && unavailable.isEmpty()) {
            log.info("Every partition log that could not be opened or created before is open now");
        }
    }

    private void deleteQuietly(TopicPartition tp) {
        try {
            logManager.deleteLog(tp);
        } catch (RuntimeException e) {
            log.warn("Could not delete the log of {} yet: {}", tp, e.getMessage());
        }
    }
}
