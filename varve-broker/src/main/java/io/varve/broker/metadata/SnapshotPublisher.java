package io.varve.broker.metadata;

import io.varve.broker.metadata.MetadataSnapshot.BrokerInfo;
import io.varve.broker.metadata.MetadataSnapshot.Endpoint;
import io.varve.broker.metadata.MetadataSnapshot.PartitionInfo;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.broker.replica.ReplicaManager;
import io.varve.metadata.MetadataPublisher;
import io.varve.metadata.image.BrokerRegistration;
import io.varve.metadata.image.ConfigResource;
import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.PartitionImage;
import io.varve.metadata.image.TopicImage;
import io.varve.metadata.record.ConfigResourceType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;

/**
 * Turns every published metadata image into the broker's {@link MetadataSnapshot} and brings the local logs in
 * line with it. Logs are reconciled only once the start-up replay is complete: an image from the middle of the
 * replay lacks topics created later, and their logs must not be taken for strays. The node's publisher reconciles
 * after the replay on a thread of its own ({@link #applyingInBackground}), not on the Raft loop that publishes.
 */
public final class SnapshotPublisher implements MetadataPublisher, AutoCloseable {
    private final MetadataCache cache;
    private final int nodeId;
    private final ReplicaManager replicaManager;
    /** Null when images are applied on the publishing thread. */
    private final LatestSnapshotApplier background;

    private boolean replayComplete;
    /** The newest image published during the start-up replay, turned into a snapshot once, when it completes. */
    private MetadataImage replayed;

    /** A publisher that reconciles the logs on the thread that publishes the image (tests). */
    public SnapshotPublisher(MetadataCache cache, ReplicaManager replicaManager) {
        this(cache, replicaManager, false);
    }

    private SnapshotPublisher(MetadataCache cache, ReplicaManager replicaManager, boolean inBackground) {
        this.cache = cache;
        this.nodeId = cache.nodeId();
        this.replicaManager = replicaManager;
        this.background = inBackground
                ? new LatestSnapshotApplier("varve-metadata-apply-" + nodeId, replicaManager::applyMetadata)
                : null;
    }

    /**
     * A publisher that, once the replay is complete, hands each image's reconciliation to its own thread: the metadata
     * cache (what clients see) is updated at once, the logs follow. Close it before the replica manager.
     */
    public static SnapshotPublisher applyingInBackground(MetadataCache cache, ReplicaManager replicaManager) {
        return new SnapshotPublisher(cache, replicaManager, true);
    }

    @Override
    public synchronized void onMetadataUpdate(MetadataDelta delta, MetadataImage newImage) {
        if (!replayComplete) {
            // Nothing reads the cache before start-up ends; building a snapshot of every partition per replayed
            // batch made start-up grow with the length of the metadata log.
            replayed = newImage;
            return;
        }
        MetadataSnapshot snapshot = toSnapshot(newImage, nodeId);
        // Only topic and config changes can change which logs exist or how they are configured; broker
        // registrations and producer-id blocks do not need a pass over every partition.
        boolean logsAffected = delta.topicsDelta() != null || delta.configsDelta() != null;
        // Clients see the image first, as with Kafka: a partition whose log is still being created answers
        // NOT_LEADER_OR_FOLLOWER (retriable) for those moments, rather than every new topic waiting for all its logs.
        cache.update(snapshot);
        if (!logsAffected) {
            return;
        }
        if (background != null) {
            background.submit(snapshot);
        } else {
            replicaManager.applyMetadata(snapshot);
        }
    }

    /** Stops the background reconciliation (an apply in progress ends first). */
    @Override
    public void close() {
        if (background != null) {
            background.close();
        }
    }

    /** Called once the metadata log has been replayed: reconciles logs with the complete image. */
    public synchronized void replayComplete(MetadataImage image) {
        MetadataImage newest = replayed != null && replayed.offset() > image.offset() ? replayed : image;
        replayed = null;
        MetadataSnapshot snapshot = toSnapshot(newest, nodeId);
        replicaManager.applyMetadata(snapshot);
        cache.update(snapshot);
        replayComplete = true;
    }

    static MetadataSnapshot toSnapshot(MetadataImage image, int nodeId) {
        Map<String, TopicInfo> byName = new HashMap<>();
        Map<Uuid, TopicInfo> byId = new HashMap<>();
        for (TopicImage topic : image.topics().topicsById().values()) {
            Map<Integer, PartitionInfo> partitions = new TreeMap<>();
            topic.partitions().forEach((index, p) -> partitions.put(index, partition(index, p)));
            TopicInfo info = new TopicInfo(
                    topic.name(),
                    topic.id(),
                    partitions,
                    Map.copyOf(image.configs().topicConfigs(topic.name())));
            byName.put(info.name(), info);
            byId.put(info.id(), info);
        }
        List<BrokerInfo> brokers = new ArrayList<>();
        for (BrokerRegistration b : image.cluster().brokers().values()) {
            if (b.fenced()) {
                continue; // as Kafka's metadata cache: clients see only brokers that may lead
            }
            brokers.add(new BrokerInfo(
                    b.id(),
                    b.rack(),
                    b.endpoints().stream()
                            .map(e -> new Endpoint(e.listenerName(), e.host(), e.port()))
                            .toList()));
        }
        return new MetadataSnapshot(
                image.offset(),
                Map.copyOf(byName),
                Map.copyOf(byId),
                List.copyOf(brokers),
                Map.copyOf(image.configs().configs(ConfigResource.broker(nodeId))),
                Map.copyOf(image.configs().configs(new ConfigResource(ConfigResourceType.BROKER, ""))));
    }

    private static PartitionInfo partition(int index, PartitionImage p) {
        return new PartitionInfo(index, p.leader(), p.leaderEpoch(), p.replicas(), p.isr(), p.partitionEpoch());
    }
}
