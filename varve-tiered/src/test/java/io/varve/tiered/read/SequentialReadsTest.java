package io.varve.tiered.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.tiered.metadata.RemoteSegmentId;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.metadata.TopicIdPartition;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class SequentialReadsTest {
    private static final TopicIdPartition P = new TopicIdPartition(Uuid.randomUuid(), "t", 0);
    private static final TopicIdPartition Q = new TopicIdPartition(Uuid.randomUuid(), "u", 0);

    private static RemoteSegmentMetadata segment(TopicIdPartition partition, long start) {
        TreeMap<Integer, Long> epochs = new TreeMap<>();
        epochs.put(0, start);
        return RemoteSegmentMetadata.copyStarted(
                RemoteSegmentId.generate(partition), start, start + 99, 0L, epochs, 10_000, 0L);
    }

    @Test
    void aReadFromASegmentsFirstByteOrWhereThePreviousEndedIsSequential() {
        SequentialReads reads = new SequentialReads(100);
        RemoteSegmentMetadata s1 = segment(P, 0);
        RemoteSegmentMetadata s2 = segment(P, 100);

        assertThat(reads.read(s1, 0, 1000)).isTrue();
        assertThat(reads.read(s1, 1000, 2000)).isTrue();
        assertThat(reads.read(s2, 0, 500)).as("the next segment's start").isTrue();
    }

    @Test
    void aReadElsewhereIsASeekAndTheReadAfterItIsSequentialAgain() {
        SequentialReads reads = new SequentialReads(100);
        RemoteSegmentMetadata s1 = segment(P, 0);
        RemoteSegmentMetadata s2 = segment(P, 100);

        assertThat(reads.read(s1, 4000, 5000)).as("no history, mid-segment").isFalse();
        assertThat(reads.read(s1, 7000, 8000)).as("a jump forward").isFalse();
        assertThat(reads.read(s2, 8000, 9000))
                .as("same position, another segment")
                .isFalse();
        assertThat(reads.read(s2, 9000, 9500)).isTrue();
    }

    @Test
    void partitionsAreTrackedApart() {
        SequentialReads reads = new SequentialReads(100);
        RemoteSegmentMetadata p1 = segment(P, 0);
        RemoteSegmentMetadata q1 = segment(Q, 0);

        reads.read(p1, 0, 1000);
        assertThat(reads.read(q1, 1000, 2000)).isFalse();
        assertThat(reads.read(p1, 1000, 2000)).isTrue();
    }
}
