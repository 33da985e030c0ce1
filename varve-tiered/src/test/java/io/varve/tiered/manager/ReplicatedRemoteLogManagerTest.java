package io.varve.tiered.manager;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.storage.LogConfig;
import io.varve.storage.LogManager;
import io.varve.storage.LogManagerConfig;
import io.varve.storage.PartitionLog;
import io.varve.storage.RolledSegment;
import io.varve.tiered.fs.FileSystemRemoteStorage;
import io.varve.tiered.metadata.RemoteLogMetadataEvent.SegmentAdded;
import io.varve.tiered.metadata.RemoteSegmentId;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.metadata.TopicIdPartition;
import io.varve.tiered.spi.SegmentFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two brokers' remote log managers in cluster mode over one shared filesystem bucket, each with its own replica of
 * the partition (built by the same appends, so offsets match): only the leader uploads, the follower learns from the
 * journal, and a new leader continues where the old one stopped.
 */
class ReplicatedRemoteLogManagerTest {
    private static final TopicPartition TP = new TopicPartition("tiered", 0);
    private static final long T0 = 1_700_000_000_000L;
    private static final LogConfig TIERED = LogConfig.builder()
            .segmentBytes(4096)
            .fileDeleteDelayMs(0)
            .remoteStorageEnable(true)
            .retentionMs(LogConfig.UNLIMITED)
            .localRetentionBytes(1)
            .build();

    @TempDir
    Path root;

    private final AtomicLong clock = new AtomicLong(T0);
    private final Uuid topicId = Uuid.randomUuid();
    private Broker a;
    private Broker b;

    /** One broker: its log dir, its replica, its manager. */
    private final class Broker implements AutoCloseable {
        final LogManager logs;
        final RemoteLogManager manager;
        final PartitionLog log;

        Broker(String name) throws IOException {
            this(name, id -> true);
        }

        Broker(String name, java.util.function.Predicate<Uuid> topicExists) throws IOException {
            Path dir = root.resolve(name);
            logs = new LogManager(
                    List.of(dir),
                    LogConfig.defaults(),
                    LogManagerConfig.defaults().withoutBackgroundTasks(),
                    clock::get);
            log = logs.getOrCreateLog(TP, topicId, TIERED);
            manager = RemoteLogManager.start(
                    RemoteLogManagerConfig.defaults(),
                    new FileSystemRemoteStorage(root.resolve("bucket"), ""),
                    List.of(dir),
                    logs::allLogs,
                    tp -> false,
                    l -> Long.MAX_VALUE,
                    clock::get,
                    false,
                    new RemoteLogManager.ClusterMode(topicExists));
        }

        @Override
        public void close() {
            manager.close();
            logs.close();
        }
    }

    @AfterEach
    void stop() {
        for (Broker broker : new Broker[] {a, b}) {
            if (broker != null) {
                broker.close();
            }
        }
    }

    private TopicIdPartition tip() {
        return new TopicIdPartition(topicId, TP);
    }

    /** Appends {@code segments} rolled segments of ten records to both replicas, then one record to each. */
    private void appendSegments(int segments) {
        for (PartitionLog log : List.of(a.log, b.log)) {
            for (int s = 0; s < segments; s++) {
                for (int i = 0; i < 10; i++) {
                    append(log);
                }
                log.updateConfig(TIERED.withSegmentMs(1));
                log.rollIfSegmentMsElapsed(Long.MAX_VALUE / 2);
                log.updateConfig(TIERED);
            }
        }
    }

    private static void append(PartitionLog log) {
        ByteBuffer batch = MemoryRecords.withRecords(
                        Compression.NONE, new SimpleRecord(T0, ("k" + log.logEndOffset()).getBytes(), new byte[100]))
                .buffer();
        log.appendAsLeader(batch, 0, T0);
        log.updateHighWatermark(log.logEndOffset());
    }

    private List<Path> segmentObjects() throws IOException {
        Path bucket = root.resolve("bucket");
        if (!Files.exists(bucket)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(bucket)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".log"))
                    .filter(p -> !p.getParent().getFileName().toString().equals("metadata"))
                    .sorted()
                    .toList();
        }
    }

    private static List<String> startOffsets(List<Path> objects) {
        return objects.stream()
                .map(p -> p.getFileName().toString().substring(0, 20))
                .toList();
    }

    @Test
    void onlyTheLeaderUploadsAndTheFollowerLearnsTheHighestUploadedOffsetFromTheJournal() throws IOException {
        a = new Broker("a");
        b = new Broker("b");
        a.manager.onBecomingLeader(TP, 1);
        appendSegments(3);

        b.manager.runOnce();
        assertThat(segmentObjects()).as("a follower uploads nothing").isEmpty();
        a.manager.runOnce();
        b.manager.runOnce();

        assertThat(segmentObjects()).hasSize(3);
        assertThat(a.manager.stats().segmentsCopied()).isEqualTo(3);
        assertThat(b.manager.stats().segmentsCopied()).isZero();
        assertThat(b.log.highestUploadedOffset()).isEqualTo(29);
        assertThat(b.manager.copiedSegments(tip()))
                .extracting(RemoteSegmentMetadata::startOffset)
                .containsExactly(0L, 10L, 20L);
        b.log.deleteOldSegments(clock.get());
        assertThat(b.log.localLogStartOffset())
                .as("the follower frees local segments the leader uploaded")
                .isBetween(10L, 30L);
        assertThat(b.log.logStartOffset())
                .as("and keeps the remote data in its log")
                .isZero();
    }

    @Test
    void aNewLeaderContinuesWhereTheOldOneStoppedAndNeverUploadsARangeTwice() throws IOException {
        a = new Broker("a");
        b = new Broker("b");
        a.manager.onBecomingLeader(TP, 1);
        appendSegments(2);
        a.manager.runOnce();
        assertThat(segmentObjects()).hasSize(2);

        a.manager.onResigning(TP, 1);
        b.manager.onBecomingLeader(TP, 2);
        appendSegments(2);
        a.manager.runOnce();
        b.manager.runOnce();

        List<Path> objects = segmentObjects();
        assertThat(startOffsets(objects))
                .containsExactly(
                        "00000000000000000000", "00000000000000000010", "00000000000000000020", "00000000000000000030");
        assertThat(a.manager.stats().segmentsCopied())
                .as("the old leader stopped")
                .isEqualTo(2);
        assertThat(b.manager.stats().segmentsCopied()).isEqualTo(2);
        assertThat(b.manager.copiedSegments(tip()))
                .extracting(RemoteSegmentMetadata::startOffset)
                .containsExactly(0L, 10L, 20L, 30L);
    }

    @Test
    void aNewLeaderDeletesTheObjectsOfACopyItsPredecessorStartedButNeverFinished() throws Exception {
        a = new Broker("a");
        b = new Broker("b");
        appendSegments(1);
        // broker a, leader of an older epoch, died during an upload: journaled COPY_STARTED, objects written
        FileSystemRemoteStorage storage = new FileSystemRemoteStorage(root.resolve("bucket"), "");
        RolledSegment rolled = a.log.rolledSegmentViews().get(0);
        TreeMap<Integer, Long> epochs = new TreeMap<>();
        epochs.put(0, 0L);
        RemoteSegmentMetadata orphan = RemoteSegmentMetadata.copyStarted(
                RemoteSegmentId.generate(tip()), 0, rolled.endOffset(), T0, epochs, rolled.sizeBytes(), T0);
        new RemoteMetadataJournal(storage, clock::get).publish(orphan, new SegmentAdded(orphan));
        storage.copySegment(
                orphan,
                new SegmentFiles(
                        rolled.logFile(),
                        rolled.offsetIndexFile(),
                        rolled.timeIndexFile(),
                        rolled.offsetIndexFile(),
                        ByteBuffer.allocate(0),
                        Optional.empty()));
        assertThat(segmentObjects()).hasSize(1);

        b.manager.onBecomingLeader(TP, 2);
        b.manager.runOnce();

        List<Path> objects = segmentObjects();
        assertThat(objects).hasSize(1);
        assertThat(objects.get(0).getFileName().toString())
                .as("the orphan's objects are gone; the new leader uploaded the range itself")
                .doesNotContain(orphan.segmentId().id().toString());
        assertThat(storage.listMetadata(tip()))
                .noneMatch(name -> name.contains(orphan.segmentId().id().toString()));
        assertThat(b.manager.copiedSegments(tip()))
                .extracting(RemoteSegmentMetadata::startOffset)
                .containsExactly(0L);
    }

    @Test
    void aFollowerStartsFromTheRemoteSegmentBelowTheLeadersLocalStartWithItsEpochsAndProducers() throws Exception {
        a = new Broker("a");
        b = new Broker("b");
        a.manager.onBecomingLeader(TP, 1);
        appendSegments(3);
        a.manager.runOnce();

        assertThat(b.manager.followerStart(b.log, tip(), 15))
                .as("a leader's local start inside a remote segment: the follower starts at that segment's end")
                .hasValueSatisfying(s -> assertThat(s.startOffset()).isEqualTo(20));
        FollowerStart start = b.manager.followerStart(b.log, tip(), 20).orElseThrow();

        assertThat(start.startOffset()).isEqualTo(20);
        assertThat(start.remoteLogStartOffset()).isZero();
        assertThat(start.leaderEpochs()).isEqualTo(a.log.leaderEpochEntries());
        assertThat(b.manager.followerStart(b.log, tip(), 40))
                .as("nothing copied holds offset 39")
                .isEmpty();
    }

    @Test
    void aGoneLogKeepsItsRemoteDataWhileTheMetadataStillHasTheTopicAndLosesItOnceItIsDeleted() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean exists = new java.util.concurrent.atomic.AtomicBoolean(true);
        a = new Broker("a", id -> exists.get());
        b = new Broker("b");
        a.manager.onBecomingLeader(TP, 1);
        appendSegments(2);
        a.manager.runOnce();
        assertThat(segmentObjects()).hasSize(2);

        a.manager.onResigning(TP, 1);
        a.logs.deleteLog(TP); // reassigned away: the topic still exists
        a.manager.runOnce();
        assertThat(segmentObjects()).as("a reassignment is not a deletion").hasSize(2);

        exists.set(false);
        a.manager.runOnce();
        assertThat(segmentObjects()).isEmpty();
        assertThat(new FileSystemRemoteStorage(root.resolve("bucket"), "").listMetadata(tip()))
                .isEmpty();
    }

    @Test
    void journalMarkersGroupBySegmentAndTheFurthestStateWins() {
        var groups = RemoteMetadataJournal.group(List.of(
                "00000000000000000000-x.copy_finished",
                "00000000000000000000-x.copy_started",
                "00000000000000000010-y.copy_started",
                "00000000000000000010-y.delete_started",
                "00000000000000000010-y.copy_finished",
                "00000000000000000020-z.delete_started",
                "junk"));
        assertThat(groups.keySet())
                .containsExactly("00000000000000000000-x", "00000000000000000010-y", "00000000000000000020-z");
        assertThat(RemoteMetadataJournal.furthest(groups.get("00000000000000000000-x")))
                .isEqualTo(io.varve.tiered.metadata.RemoteSegmentState.COPY_SEGMENT_FINISHED);
        assertThat(RemoteMetadataJournal.furthest(groups.get("00000000000000000010-y")))
                .as("a deposed leader's late copy_finished never revives a segment being deleted")
                .isEqualTo(io.varve.tiered.metadata.RemoteSegmentState.DELETE_SEGMENT_STARTED);
    }
}
