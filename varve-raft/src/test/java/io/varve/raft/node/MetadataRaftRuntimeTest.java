package io.varve.raft.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.raft.RaftClosedException;
import io.varve.raft.RaftListener;
import io.varve.raft.RaftRecord;
import java.nio.charset.StandardCharsets;
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

    private MetadataRaftRuntime start(RaftListener listener) {
        MetadataRaftRuntime raft = new MetadataRaftRuntime(
                new MetadataRaftRuntime.Settings(1, "test-cluster", Set.of(1), dir, RaftTransport.none(), 10_000));
        raft.register(listener);
        raft.start();
        return raft;
    }

    private static List<byte[]> payloads(String prefix, int count) {
        return IntStream.range(0, count)
                .mapToObj(i -> (prefix + i).getBytes(StandardCharsets.UTF_8))
                .toList();
    }

    private static final class Recorder implements RaftListener {
        final List<List<RaftRecord>> calls = new CopyOnWriteArrayList<>();
        final List<List<Integer>> leaders = new CopyOnWriteArrayList<>();

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
