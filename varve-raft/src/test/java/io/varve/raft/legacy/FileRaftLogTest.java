package io.varve.raft.legacy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileRaftLogTest {

    @TempDir
    Path dir;

    private static List<byte[]> entries(int count, int bytesEach) {
        return java.util.stream.IntStream.range(0, count)
                .mapToObj(i -> new byte[bytesEach])
                .toList();
    }

    @Test
    void appendAssignsDenseOffsetsAndTracksEpochs() throws IOException {
        try (FileRaftLog log = FileRaftLog.open(dir)) {
            LogBatch first = log.append(1, entries(3, 10));
            LogBatch second = log.append(2, entries(2, 10));

            assertThat(first.baseOffset()).isZero();
            assertThat(second.baseOffset()).isEqualTo(3);
            assertThat(log.endOffset()).isEqualTo(5);
            assertThat(log.flushedEndOffset()).isZero();
            assertThat(log.lastEpoch()).isEqualTo(2);
            assertThat(log.epochStartOffset(2)).isEqualTo(3);
            log.flush();
            assertThat(log.flushedEndOffset()).isEqualTo(5);
        }
    }

    @Test
    void appendInAnEarlierEpochIsRejected() throws IOException {
        try (FileRaftLog log = FileRaftLog.open(dir)) {
            log.append(3, entries(1, 1));
            assertThatThrownBy(() -> log.append(2, entries(1, 1))).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void readStartsAtTheBatchContainingTheOffsetAcrossManyIndexIntervals() throws IOException {
        try (FileRaftLog log = FileRaftLog.open(dir)) {
            for (int i = 0; i < 100; i++) {
                log.append(1, entries(4, 5_000)); // ~20 KB per batch: several index entries
            }
            List<LogBatch> batches = log.read(201, Long.MAX_VALUE, 8);

            assertThat(batches).extracting(LogBatch::baseOffset).containsExactly(200L, 204L);
            assertThat(log.read(396, 398, 100)).extracting(LogBatch::baseOffset).containsExactly(396L);
            assertThat(log.read(400, Long.MAX_VALUE, 100)).isEmpty();
        }
    }

    @Test
    void reopenRecoversEveryBatchAndItsPayloads() throws IOException {
        try (FileRaftLog log = FileRaftLog.open(dir)) {
            log.append(1, List.of("a".getBytes(), "bb".getBytes()));
            log.append(4, List.of("ccc".getBytes()));
            log.flush();
        }
        try (FileRaftLog log = FileRaftLog.open(dir)) {
            assertThat(log.endOffset()).isEqualTo(3);
            assertThat(log.lastEpoch()).isEqualTo(4);
            List<LogBatch> batches = log.read(0, Long.MAX_VALUE, 100);
            assertThat(batches).hasSize(2);
            assertThat(batches.get(0).payloads()).containsExactly("a".getBytes(), "bb".getBytes());
            assertThat(batches.get(1).epoch()).isEqualTo(4);
        }
    }

    @Test
    void truncateToRemovesWholeBatchesAndLetsAppendsContinue() throws IOException {
        try (FileRaftLog log = FileRaftLog.open(dir)) {
            log.append(1, entries(2, 1));
            log.append(2, entries(2, 1));
            log.append(3, entries(2, 1));

            assertThatThrownBy(() -> log.truncateTo(3)).isInstanceOf(IllegalArgumentException.class);
            log.truncateTo(2);

            assertThat(log.endOffset()).isEqualTo(2);
            assertThat(log.lastEpoch()).isEqualTo(1);
            assertThat(log.append(5, entries(1, 1)).baseOffset()).isEqualTo(2);
        }
        try (FileRaftLog log = FileRaftLog.open(dir)) {
            assertThat(log.read(0, Long.MAX_VALUE, 10))
                    .extracting(LogBatch::epoch)
                    .containsExactly(1, 5);
        }
    }
}
