package io.varve.raft.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.raft.RaftClosedException;
import io.varve.raft.RaftListener;
import io.varve.raft.RaftRecord;
import io.varve.raft.core.store.FileRaftLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetadataRaftRuntimeTest {
    @TempDir
    Path dir;

    @Test
    void aLoneVoterLeadsOnStartAndHandsEachBatchWholeEvenWhenItSpansSeveralCommitChunks() throws Exception {
        Recorder recorder = new Recorder();
        try (MetadataRaftRuntime raft = start(recorder)) {
            assertThat(raft.leaderId()).isEqualTo(1);
            assertThat(recorder.leaders).last().isEqualTo(List.of(1, raft.epoch()));
            long small = raft.append(payloads("a", 3)).get(10, TimeUnit.SECONDS);
            // more entries than the core hands over in one output (maxCommittedPerOutput, 1024)
            long large = raft.append(payloads("b", 3000)).get(10, TimeUnit.SECONDS);

            assertThat(recorder.calls).hasSize(2);
            assertThat(recorder.calls.get(0)).hasSize(3);
            assertThat(recorder.calls.get(1)).hasSize(3000);
            assertThat(recorder.calls.get(0).get(2).offset()).isEqualTo(small);
            assertThat(recorder.calls.get(1).get(2999).offset()).isEqualTo(large);
            assertThat(new String(recorder.calls.get(1).get(7).payload(), StandardCharsets.UTF_8))
                    .isEqualTo("b7");
            assertThat(raft.highWatermark()).isGreaterThan(large);
        }
    }

    @Test
    void aRestartReplaysTheSameRecordsInOrderBeforeStartReturns() throws Exception {
        Recorder first = new Recorder();
        try (MetadataRaftRuntime raft = start(first)) {
            for (int i = 0; i < 5; i++) {
                raft.append(payloads("r" + i + "-", 1 + i)).get(10, TimeUnit.SECONDS);
            }
        }
        Recorder second = new Recorder();
        try (MetadataRaftRuntime raft = start(second)) {
            assertThat(second.records()).isEqualTo(first.records());
            raft.append(payloads("after", 1)).get(10, TimeUnit.SECONDS);
            assertThat(second.records()).hasSize(first.records().size() + 1);
        }
    }

    @Test
    void aSnapshotMovesTheLogStartDeletesTheSegmentsItCoversAndARestartLoadsItThenTheTail() throws Exception {
        long snapshotEnd;
        List<RaftRecord> tail;
        Recorder first = new Recorder();
        try (MetadataRaftRuntime raft = start(first, 1024)) {
            long last = 0;
            for (int i = 0; i < 40; i++) {
                last = raft.append(payloads("x".repeat(100) + i + "-", 3)).get(10, TimeUnit.SECONDS);
            }
            long segmentsBefore = segmentFiles();
            snapshotEnd = last + 1;
            raft.snapshot(snapshotEnd, "state".getBytes(StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);

            assertThat(raft.logStartOffset()).isEqualTo(snapshotEnd);
            assertThat(raft.snapshotsTaken()).isEqualTo(1);
            assertThat(segmentFiles()).isLessThan(segmentsBefore).isLessThanOrEqualTo(1);
            raft.append(payloads("tail", 2)).get(10, TimeUnit.SECONDS);
            tail = first.records()
                    .subList(first.records().size() - 2, first.records().size());
        }
        Recorder second = new Recorder();
        try (MetadataRaftRuntime raft = start(second, 1024)) {
            assertThat(second.snapshots).containsExactly(snapshotEnd + ":state");
            assertThat(second.records()).isEqualTo(tail);
            assertThat(raft.snapshotsInstalledFromLeader()).isZero();
            assertThat(raft.logStartOffset()).isEqualTo(snapshotEnd);
        }
    }

    @Test
    void aSnapshotFileWithABadChecksumStopsTheReplicaAtStart() throws Exception {
        try (MetadataRaftRuntime raft = start(new Recorder(), 1024)) {
            long last = raft.append(payloads("a", 3)).get(10, TimeUnit.SECONDS);
            raft.snapshot(last + 1, "state-of-the-image".getBytes(StandardCharsets.UTF_8))
                    .get(10, TimeUnit.SECONDS);
        }
        Path checkpoint;
        try (var files = Files.list(MetadataRaftRuntime.storeDir(dir))) {
            checkpoint = files.filter(f -> f.toString().endsWith(".checkpoint"))
                    .findFirst()
                    .orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(checkpoint);
        bytes[bytes.length - 3] ^= 0x01;
        Files.write(checkpoint, bytes);

        Recorder recorder = new Recorder();
        assertThatThrownBy(() -> start(recorder, 1024)).hasMessageContaining("checksum");
        assertThat(recorder.snapshots).isEmpty();
    }

    @Test
    void aSnapshotAListenerRefusesIsNeverStoredAndTheReplicaStopsWithItsLogIntact() throws Exception {
        Recorder refusing = new Recorder() {
            @Override
            public void verifySnapshot(long endOffset, byte[] snapshot) {
                throw new IllegalStateException("bad checksum");
            }
        };
        long last;
        try (MetadataRaftRuntime raft = start(refusing, 1024)) {
            last = raft.append(payloads("a", 3)).get(10, TimeUnit.SECONDS);
            assertThatThrownBy(() -> raft.snapshot(last + 1, "state".getBytes(StandardCharsets.UTF_8))
                            .get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class);
            assertThat(raft.logStartOffset()).isZero();
        }
        try (var files = Files.list(MetadataRaftRuntime.storeDir(dir))) {
            assertThat(files.map(f -> f.getFileName().toString())).noneMatch(n -> n.contains(".checkpoint"));
        }
        Recorder restarted = new Recorder();
        try (MetadataRaftRuntime raft = start(restarted, 1024)) {
            assertThat(restarted.snapshots).isEmpty();
            assertThat(restarted.records()).hasSize(3);
            assertThat(restarted.records().get(2).offset()).isEqualTo(last);
        }
    }

    @Test
    void appendsAreRefusedWhenTooLargeAndFailOnceClosed() throws Exception {
        MetadataRaftRuntime raft = start(new Recorder());
        assertThatThrownBy(() -> raft.append(payloads("x", MetadataRaftRuntime.MAX_BATCH_ENTRIES + 1)))
                .isInstanceOf(IllegalArgumentException.class);
        raft.close();
        assertThatThrownBy(() -> raft.append(payloads("y", 1)).get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(RaftClosedException.class);
        assertThat(raft.leaderId()).isEqualTo(-1);
    }

    @Test
    void aNodeOutsideTheVotersObservesTheLogItFetchesFromTheLeaderAndCannotAppend() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        Recorder voterRecords = new Recorder();
        Recorder observerRecords = new Recorder();
        try (MetadataRaftRuntime voter = new MetadataRaftRuntime(new MetadataRaftRuntime.Settings(
                        1, "test-cluster", Set.of(1), dir.resolve("voter"), network.transport(1), 10_000));
                MetadataRaftRuntime observer = new MetadataRaftRuntime(new MetadataRaftRuntime.Settings(
                        2, "test-cluster", Set.of(1), dir.resolve("observer"), network.transport(2), 10_000))) {
            assertThat(new MetadataRaftRuntime.Settings(2, "c", Set.of(1), dir, RaftTransport.none(), 1).observer())
                    .isTrue();
            voter.register(voterRecords);
            observer.register(observerRecords);
            voter.start();
            voter.append(payloads("before", 2)).get(10, TimeUnit.SECONDS);
            observer.start(); // returns once it knows the leader

            assertThat(observer.leaderId()).isEqualTo(1);
            voter.append(payloads("after", 3)).get(10, TimeUnit.SECONDS);
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(observerRecords.records()).hasSize(5));
            assertThat(observerRecords.records()).isEqualTo(voterRecords.records());
            assertThatThrownBy(() -> observer.append(payloads("x", 1)).get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(io.varve.raft.NotLeaderException.class);
        }
    }

    private MetadataRaftRuntime start(RaftListener listener) {
        return start(listener, FileRaftLog.DEFAULT_SEGMENT_BYTES);
    }

    private MetadataRaftRuntime start(RaftListener listener, int segmentBytes) {
        MetadataRaftRuntime raft = new MetadataRaftRuntime(new MetadataRaftRuntime.Settings(
                1,
                "test-cluster",
                Set.of(1),
                dir,
                RaftTransport.none(),
                10_000,
                QuorumTimeouts.KAFKA_DEFAULTS,
                segmentBytes));
        raft.register(listener);
        raft.start();
        return raft;
    }

    private long segmentFiles() throws IOException {
        try (var files = Files.list(MetadataRaftRuntime.storeDir(dir))) {
            return files.filter(f -> f.toString().endsWith(".log")).count();
        }
    }

    private static List<byte[]> payloads(String prefix, int count) {
        return IntStream.range(0, count)
                .mapToObj(i -> (prefix + i).getBytes(StandardCharsets.UTF_8))
                .toList();
    }

    private static class Recorder implements RaftListener {
        final List<List<RaftRecord>> calls = new CopyOnWriteArrayList<>();
        final List<List<Integer>> leaders = new CopyOnWriteArrayList<>();
        final List<String> snapshots = new CopyOnWriteArrayList<>();

        @Override
        public void handleSnapshot(long endOffset, byte[] snapshot) {
            snapshots.add(endOffset + ":" + new String(snapshot, StandardCharsets.UTF_8));
            calls.clear();
        }

        @Override
        public void handleCommit(List<RaftRecord> records) {
            calls.add(List.copyOf(records));
        }

        @Override
        public void handleLeaderChange(int leaderId, int epoch) {
            leaders.add(List.of(leaderId, epoch));
        }

        List<RaftRecord> records() {
            List<RaftRecord> all = new ArrayList<>();
            calls.forEach(all::addAll);
            return all;
        }
    }
}
