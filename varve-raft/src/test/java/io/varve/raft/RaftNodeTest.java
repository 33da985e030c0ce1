package io.varve.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.raft.log.FileRaftLog;
import io.varve.raft.state.FileQuorumStateStore;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RaftNodeTest {

    private static final int NODE_ID = 1;

    @TempDir
    Path dir;

    private final List<RaftNode> nodes = new ArrayList<>();

    @AfterEach
    void closeNodes() {
        nodes.forEach(RaftNode::close);
    }

    private RaftNode startNode(RaftListener... listeners) {
        RaftNode node = new RaftNode(RaftConfig.builder()
                .nodeId(NODE_ID)
                .voters(Set.of(NODE_ID))
                .logDir(dir)
                .build());
        nodes.add(node);
        for (RaftListener listener : listeners) {
            node.register(listener);
        }
        node.start();
        return node;
    }

    private static List<byte[]> payloads(String... values) {
        return java.util.Arrays.stream(values)
                .map(v -> v.getBytes(StandardCharsets.UTF_8))
                .toList();
    }

    private Path segmentFile() {
        return dir.resolve("__cluster_metadata-0").resolve(FileRaftLog.SEGMENT_FILE_NAME);
    }

    @Test
    void singleVoterElectsItselfLeaderOfEpochOneOnFirstStart() {
        RecordingListener listener = new RecordingListener();
        RaftNode node = startNode(listener);

        assertThat(node.leaderId()).isEqualTo(NODE_ID);
        assertThat(node.epoch()).isEqualTo(1);
        assertThat(node.highWatermark()).isZero();
        assertThat(listener.records).isEmpty();
        assertThat(listener.leaderChanges).containsExactly(new int[] {NODE_ID, 1});
    }

    @Test
    void appendCompletesWithLastOffsetAfterListenersReceivedTheBatch() {
        RecordingListener first = new RecordingListener();
        RecordingListener second = new RecordingListener();
        RaftNode node = startNode(first, second);

        CompletableFuture<List<String>> seenAtCompletion = node.append(payloads("a", "b", "c"))
                .thenApply(lastOffset -> {
                    assertThat(lastOffset).isEqualTo(2L);
                    return second.payloadsAsStrings();
                });

        assertThat(seenAtCompletion.join()).containsExactly("a", "b", "c");
        assertThat(first.offsets()).containsExactly(0L, 1L, 2L);
        assertThat(first.records).allSatisfy(r -> assertThat(r.epoch()).isEqualTo(1));
        assertThat(first.callSizes).containsExactly(3);
        assertThat(node.highWatermark()).isEqualTo(3);
    }

    @Test
    void concurrentAppendsGetDenseOffsetsAndAreDeliveredOnceInOrderAndAtomically() throws Exception {
        RecordingListener listener = new RecordingListener();
        RaftNode node = startNode(listener);
        int threads = 4;
        int appendsPerThread = 200;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<CompletableFuture<Long>> futures = new ArrayList<>();
        try {
            List<CompletableFuture<List<CompletableFuture<Long>>>> submitted = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                submitted.add(CompletableFuture.supplyAsync(
                        () -> IntStream.range(0, appendsPerThread)
                                .mapToObj(i -> node.append(payloads(thread + "-" + i + "-x", thread + "-" + i + "-y")))
                                .toList(),
                        pool));
            }
            for (CompletableFuture<List<CompletableFuture<Long>>> s : submitted) {
                futures.addAll(s.join());
            }
        } finally {
            pool.shutdown();
        }
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).join();

        int total = threads * appendsPerThread * 2;
        assertThat(listener.offsets())
                .containsExactlyElementsOf(LongStream.range(0, total).boxed().toList());
        List<String> values = listener.payloadsAsStrings();
        for (int i = 0; i < total; i += 2) {
            // the two entries of one batch stay adjacent
            assertThat(values.get(i)).endsWith("-x");
            assertThat(values.get(i + 1)).isEqualTo(values.get(i).replace("-x", "-y"));
        }
        assertThat(futures.stream().map(CompletableFuture::join).sorted().toList())
                .containsExactlyElementsOf(LongStream.range(0, total / 2)
                        .map(i -> i * 2 + 1)
                        .boxed()
                        .toList());
        assertThat(node.highWatermark()).isEqualTo(total);
    }

    @Test
    void restartReplaysTheWholeLogToListenersBeforeAcceptingAppends() {
        RaftNode first = startNode(new RecordingListener());
        first.append(payloads("a", "b")).join();
        first.append(payloads("c")).join();
        first.close();

        RecordingListener listener = new RecordingListener();
        RaftNode second = startNode(listener);

        assertThat(listener.payloadsAsStrings()).containsExactly("a", "b", "c");
        assertThat(listener.records).extracting(RaftRecord::epoch).containsOnly(1);
        assertThat(second.highWatermark()).isEqualTo(3);
        assertThat(second.append(payloads("d")).join()).isEqualTo(3L);
        assertThat(listener.records.get(3).epoch()).isEqualTo(2);
    }

    @Test
    void replayGroupsWholeBatchesIntoBoundedDeliveries() {
        RaftNode first = startNode();
        for (int i = 0; i < 10; i++) {
            first.append(payloads("a", "b", "c")).join();
        }
        first.close();

        RecordingListener listener = new RecordingListener();
        RaftNode node = new RaftNode(RaftConfig.builder()
                .nodeId(NODE_ID)
                .voters(Set.of(NODE_ID))
                .logDir(dir)
                .maxRecordsPerDelivery(7)
                .build());
        nodes.add(node);
        node.register(listener);
        node.start();

        assertThat(listener.records).hasSize(30);
        assertThat(listener.callSizes).allSatisfy(size -> assertThat(size % 3).isZero());
        assertThat(listener.callSizes).allSatisfy(size -> assertThat(size).isLessThanOrEqualTo(9));
    }

    @Test
    void epochIncreasesOnEveryRestartAndIsPersisted() throws IOException {
        for (int expectedEpoch = 1; expectedEpoch <= 3; expectedEpoch++) {
            RaftNode node = startNode();
            assertThat(node.epoch()).isEqualTo(expectedEpoch);
            node.append(payloads("e" + expectedEpoch)).join();
            node.close();
            assertThat(new FileQuorumStateStore(dir.resolve("__cluster_metadata-0"))
                            .read()
                            .orElseThrow())
                    .satisfies(state -> {
                        assertThat(state.leaderId()).isEqualTo(NODE_ID);
                        assertThat(state.votedId()).isEqualTo(NODE_ID);
                    });
        }
        RecordingListener listener = new RecordingListener();
        startNode(listener);
        assertThat(listener.records).extracting(RaftRecord::epoch).containsExactly(1, 2, 3);
    }

    @Test
    void lostQuorumStateFileNeverLetsTheNodeReuseAnEpochOfTheLog() throws IOException {
        for (int i = 0; i < 3; i++) {
            RaftNode node = startNode();
            node.append(payloads("x")).join();
            node.close();
        }
        Files.delete(dir.resolve("__cluster_metadata-0").resolve(FileQuorumStateStore.FILE_NAME));

        RaftNode node = startNode();

        assertThat(node.epoch()).isEqualTo(4);
    }

    @Test
    void partiallyWrittenLastBatchIsTruncatedWholeOnRestart() throws IOException {
        RaftNode first = startNode();
        first.append(payloads("kept-1")).join();
        first.append(payloads("kept-2", "kept-3")).join();
        long sizeBeforeLastBatch = Files.size(segmentFile());
        first.append(payloads("lost-1", "lost-2", "lost-3")).join();
        first.close();
        long fullSize = Files.size(segmentFile());
        truncateFile(segmentFile(), sizeBeforeLastBatch + (fullSize - sizeBeforeLastBatch) / 2);

        RecordingListener listener = new RecordingListener();
        RaftNode second = startNode(listener);

        assertThat(listener.payloadsAsStrings()).containsExactly("kept-1", "kept-2", "kept-3");
        assertThat(Files.size(segmentFile())).isEqualTo(sizeBeforeLastBatch);
        assertThat(second.append(payloads("next")).join()).isEqualTo(3L);
    }

    @Test
    void lastBatchWithBadCrcIsTruncatedOnRestart() throws IOException {
        RaftNode first = startNode();
        first.append(payloads("kept")).join();
        long sizeBeforeLastBatch = Files.size(segmentFile());
        first.append(payloads("corrupted")).join();
        first.close();
        flipLastByte(segmentFile());

        RecordingListener listener = new RecordingListener();
        startNode(listener);

        assertThat(listener.payloadsAsStrings()).containsExactly("kept");
        assertThat(Files.size(segmentFile())).isEqualTo(sizeBeforeLastBatch);
    }

    @Test
    void zeroFilledTailIsTruncatedOnRestart() throws IOException {
        RaftNode first = startNode();
        first.append(payloads("kept")).join();
        first.close();
        long size = Files.size(segmentFile());
        Files.write(segmentFile(), new byte[100], StandardOpenOption.APPEND);

        RecordingListener listener = new RecordingListener();
        startNode(listener);

        assertThat(listener.payloadsAsStrings()).containsExactly("kept");
        assertThat(Files.size(segmentFile())).isEqualTo(size);
    }

    @Test
    void appendBeforeStartFailsWithNotLeader() {
        RaftNode node = new RaftNode(RaftConfig.builder()
                .nodeId(NODE_ID)
                .voters(Set.of(NODE_ID))
                .logDir(dir)
                .build());
        nodes.add(node);

        assertThatThrownBy(() -> node.append(payloads("x")).join())
                .isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(NotLeaderException.class);
    }

    @Test
    void appendAfterCloseFailsWithRaftClosed() {
        RaftNode node = startNode();
        node.close();

        assertThatThrownBy(() -> node.append(payloads("x")).join()).hasCauseInstanceOf(RaftClosedException.class);
        assertThat(node.leaderId()).isEqualTo(-1);
    }

    @Test
    void registeringAfterStartIsRejected() {
        RaftNode node = startNode();

        assertThatThrownBy(() -> node.register(records -> {})).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void multiVoterQuorumIsRejectedUntilReplicationExists() {
        assertThatThrownBy(() -> new RaftNode(RaftConfig.builder()
                        .nodeId(1)
                        .voters(Set.of(1, 2, 3))
                        .logDir(dir)
                        .build()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void batchLargerThanMaxBatchBytesIsRejected() {
        RaftNode node = new RaftNode(RaftConfig.builder()
                .nodeId(NODE_ID)
                .voters(Set.of(NODE_ID))
                .logDir(dir)
                .maxBatchBytes(100)
                .build());
        nodes.add(node);
        node.start();

        assertThatThrownBy(() -> node.append(List.of(new byte[200]))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void listenerFailureIsFatalToTheNode() {
        RaftListener failing = records -> {
            if (records.stream().anyMatch(r -> new String(r.payload(), StandardCharsets.UTF_8).equals("poison"))) {
                throw new IllegalStateException("cannot apply");
            }
        };
        RaftNode node = startNode(failing);

        assertThatThrownBy(() -> node.append(payloads("poison")).join()).hasCauseInstanceOf(RaftException.class);
        assertThatThrownBy(() -> node.append(payloads("fine")).join()).hasCauseInstanceOf(RaftClosedException.class);
        assertThat(node.leaderId()).isEqualTo(-1);
    }

    @Test
    void listenerFailureDuringReplayFailsStart() {
        RaftNode first = startNode();
        first.append(payloads("x")).join();
        first.close();

        RaftNode node = new RaftNode(RaftConfig.builder()
                .nodeId(NODE_ID)
                .voters(Set.of(NODE_ID))
                .logDir(dir)
                .build());
        nodes.add(node);
        node.register(records -> {
            throw new IllegalStateException("cannot apply");
        });

        assertThatThrownBy(node::start).isInstanceOf(RaftException.class);
    }

    private static void truncateFile(Path file, long size) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(size);
        }
    }

    private static void flipLastByte(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length - 1] ^= 0x5A;
        Files.write(file, bytes);
    }
}
