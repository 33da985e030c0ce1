package io.varve.tiered.metadata;

import static io.varve.tiered.metadata.RemoteSegmentState.COPY_SEGMENT_FINISHED;
import static io.varve.tiered.metadata.RemoteSegmentState.COPY_SEGMENT_STARTED;
import static io.varve.tiered.metadata.RemoteSegmentState.DELETE_SEGMENT_FINISHED;
import static io.varve.tiered.metadata.RemoteSegmentState.DELETE_SEGMENT_STARTED;
import static io.varve.tiered.metadata.Segments.PARTITION;
import static io.varve.tiered.metadata.Segments.epochs;
import static io.varve.tiered.metadata.Segments.segment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.tiered.metadata.RemoteLogMetadataEvent.SegmentAdded;
import io.varve.tiered.metadata.RemoteLogMetadataEvent.SegmentStateChanged;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class RemoteLogMetadataCacheTest {
    private final RemoteLogMetadataCache cache = new RemoteLogMetadataCache();

    private RemoteSegmentMetadata add(RemoteSegmentMetadata m) {
        return cache.apply(new SegmentAdded(m));
    }

    private RemoteSegmentMetadata move(RemoteSegmentMetadata m, RemoteSegmentState state) {
        return cache.apply(new SegmentStateChanged(m.segmentId(), state, 1L));
    }

    private RemoteSegmentMetadata copied(RemoteSegmentMetadata m) {
        add(m);
        return move(m, COPY_SEGMENT_FINISHED);
    }

    @Test
    void exactlyKafkasLegalTransitionsAreAllowed() {
        Set<String> legal = Set.of(
                "null->COPY_SEGMENT_STARTED",
                "COPY_SEGMENT_STARTED->COPY_SEGMENT_STARTED",
                "COPY_SEGMENT_STARTED->COPY_SEGMENT_FINISHED",
                "COPY_SEGMENT_STARTED->DELETE_SEGMENT_STARTED",
                "COPY_SEGMENT_FINISHED->COPY_SEGMENT_FINISHED",
                "COPY_SEGMENT_FINISHED->DELETE_SEGMENT_STARTED",
                "DELETE_SEGMENT_STARTED->DELETE_SEGMENT_STARTED",
                "DELETE_SEGMENT_STARTED->DELETE_SEGMENT_FINISHED",
                "DELETE_SEGMENT_FINISHED->DELETE_SEGMENT_FINISHED");
        List<RemoteSegmentState> from = new ArrayList<>();
        from.add(null);
        from.addAll(EnumSet.allOf(RemoteSegmentState.class));
        for (RemoteSegmentState f : from) {
            for (RemoteSegmentState t : RemoteSegmentState.values()) {
                assertThat(RemoteSegmentState.isLegalTransition(f, t))
                        .as(f + "->" + t)
                        .isEqualTo(legal.contains(f + "->" + t));
            }
        }
    }

    @Test
    void segmentWalksTheWholeLifecycleAndIsForgottenWhenDeleteFinishes() {
        RemoteSegmentMetadata m = segment(0, 99);
        assertThat(add(m).state()).isEqualTo(COPY_SEGMENT_STARTED);
        assertThat(move(m, COPY_SEGMENT_FINISHED).state()).isEqualTo(COPY_SEGMENT_FINISHED);
        assertThat(move(m, DELETE_SEGMENT_STARTED).state()).isEqualTo(DELETE_SEGMENT_STARTED);
        assertThat(cache.segment(m.segmentId()))
                .get()
                .extracting(RemoteSegmentMetadata::state)
                .isEqualTo(DELETE_SEGMENT_STARTED);
        move(m, DELETE_SEGMENT_FINISHED);
        assertThat(cache.segment(m.segmentId())).isEmpty();
        assertThat(cache.segments(PARTITION)).isEmpty();
        assertThat(cache.partitions()).isEmpty();
    }

    @Test
    void illegalTransitionsAreRejectedAndChangeNothing() {
        RemoteSegmentMetadata m = segment(0, 99);
        add(m);
        assertThatThrownBy(() -> move(m, DELETE_SEGMENT_FINISHED))
                .isInstanceOf(IllegalRemoteSegmentTransitionException.class)
                .hasMessageContaining("COPY_SEGMENT_STARTED to DELETE_SEGMENT_FINISHED");
        move(m, COPY_SEGMENT_FINISHED);
        assertThatThrownBy(() -> move(m, COPY_SEGMENT_STARTED))
                .isInstanceOf(IllegalRemoteSegmentTransitionException.class);
        move(m, DELETE_SEGMENT_STARTED);
        assertThatThrownBy(() -> move(m, COPY_SEGMENT_FINISHED))
                .isInstanceOf(IllegalRemoteSegmentTransitionException.class);
        assertThat(cache.segment(m.segmentId()))
                .get()
                .extracting(RemoteSegmentMetadata::state)
                .isEqualTo(DELETE_SEGMENT_STARTED);
    }

    @Test
    void stateChangeOfAnUnknownSegmentIsRejected() {
        RemoteSegmentMetadata m = segment(0, 99);
        assertThatThrownBy(() -> move(m, COPY_SEGMENT_FINISHED))
                .isInstanceOf(IllegalRemoteSegmentTransitionException.class)
                .hasMessageContaining("unknown remote segment");
    }

    @Test
    void reAddingTheSameSegmentIsIdempotentButADifferentDescriptionIsRejected() {
        RemoteSegmentMetadata m = segment(0, 99);
        add(m);
        add(m);
        RemoteSegmentMetadata other = RemoteSegmentMetadata.copyStarted(m.segmentId(), 0, 150, 1, epochs(0, 0), 10, 1);
        assertThatThrownBy(() -> add(other)).isInstanceOf(IllegalRemoteSegmentTransitionException.class);
        assertThat(cache.segments(PARTITION)).containsExactly(m);
    }

    @Test
    void onlyFinishedCopiesAnswerOffsetLookups() {
        RemoteSegmentMetadata first = copied(segment(0, 99));
        RemoteSegmentMetadata inFlight = add(segment(100, 199));
        assertThat(cache.segmentForOffset(PARTITION, 50)).contains(first);
        assertThat(cache.segmentForOffset(PARTITION, 150)).isEmpty();
        assertThat(cache.segments(PARTITION)).containsExactly(first, inFlight);
        assertThat(cache.copiedSegments(PARTITION)).containsExactly(first);
        assertThat(cache.highestCopiedOffset(PARTITION)).hasValue(99);
        assertThat(cache.lowestCopiedOffset(PARTITION)).hasValue(0);
    }

    @Test
    void offsetLookupWithLeaderEpochUsesTheEpochsRangeInsideTheSegment() {
        // segment A: epoch 0 at [0,49], epoch 1 at [50,99]; segment B: epoch 1 at [100,149], epoch 3 at [150,199]
        RemoteSegmentMetadata a = copied(segment(PARTITION, 0, 99, epochs(0, 0, 1, 50)));
        RemoteSegmentMetadata b = copied(segment(PARTITION, 100, 199, epochs(1, 100, 3, 150)));
        assertThat(cache.segmentForOffset(PARTITION, 0, 10)).contains(a);
        assertThat(cache.segmentForOffset(PARTITION, 0, 60)).isEmpty();
        assertThat(cache.segmentForOffset(PARTITION, 1, 60)).contains(a);
        assertThat(cache.segmentForOffset(PARTITION, 1, 120)).contains(b);
        assertThat(cache.segmentForOffset(PARTITION, 1, 160)).isEmpty();
        assertThat(cache.segmentForOffset(PARTITION, 3, 199)).contains(b);
        assertThat(cache.segmentForOffset(PARTITION, 2, 120)).isEmpty();
        assertThat(cache.highestCopiedOffsetForEpoch(PARTITION, 0)).hasValue(49);
        assertThat(cache.highestCopiedOffsetForEpoch(PARTITION, 1)).hasValue(149);
        assertThat(cache.highestCopiedOffsetForEpoch(PARTITION, 3)).hasValue(199);
        assertThat(cache.highestCopiedOffsetForEpoch(PARTITION, 2)).isEmpty();
    }

    @Test
    void overlappingSegmentsAnswerWithTheOneStartingLastThatHoldsTheOffset() {
        RemoteSegmentMetadata wide = copied(segment(0, 199));
        RemoteSegmentMetadata inner = copied(segment(100, 149));
        RemoteSegmentMetadata sameStartLonger = copied(segment(100, 159));
        assertThat(cache.segmentForOffset(PARTITION, 50)).contains(wide);
        assertThat(cache.segmentForOffset(PARTITION, 120)).contains(sameStartLonger);
        assertThat(cache.segmentForOffset(PARTITION, 155)).contains(sameStartLonger);
        assertThat(cache.segmentForOffset(PARTITION, 170)).contains(wide);
        assertThat(cache.segmentForOffset(PARTITION, 200)).isEmpty();
        move(sameStartLonger, DELETE_SEGMENT_STARTED);
        assertThat(cache.segmentForOffset(PARTITION, 120)).contains(inner);
        assertThat(cache.segments(PARTITION))
                .containsExactly(wide, inner, sameStartLonger.withState(DELETE_SEGMENT_STARTED, 1L));
    }

    @Test
    void segmentsAreListedInOffsetOrderPerPartition() {
        TopicIdPartition other = new TopicIdPartition(Uuid.randomUuid(), "orders", 4);
        RemoteSegmentMetadata s3 = copied(segment(200, 299));
        RemoteSegmentMetadata s1 = copied(segment(0, 99));
        RemoteSegmentMetadata s2 = copied(segment(100, 199));
        RemoteSegmentMetadata elsewhere = copied(segment(other, 0, 10, epochs(0, 0)));
        assertThat(cache.segments(PARTITION)).containsExactly(s1, s2, s3);
        assertThat(cache.segments(other)).containsExactly(elsewhere);
        assertThat(cache.partitions()).containsExactlyInAnyOrder(PARTITION, other);
    }

    @Test
    void crashLeftoversAreUnfinishedCopiesAndUnfinishedDeletes() {
        RemoteSegmentMetadata done = copied(segment(0, 99));
        RemoteSegmentMetadata halfCopied = add(segment(100, 199));
        RemoteSegmentMetadata halfDeleted = copied(segment(200, 299));
        halfDeleted = move(halfDeleted, DELETE_SEGMENT_STARTED);
        RemoteSegmentMetadata gone = copied(segment(300, 399));
        move(gone, DELETE_SEGMENT_STARTED);
        move(gone, DELETE_SEGMENT_FINISHED);
        assertThat(cache.segmentsToCleanUp()).containsExactly(halfCopied, halfDeleted);
        assertThat(cache.segmentsToCleanUp()).doesNotContain(done);
    }

    @Test
    void replayingTheSameEventsYieldsTheSameState() {
        Random random = new Random(42);
        List<RemoteLogMetadataEvent> log = new ArrayList<>();
        List<RemoteSegmentMetadata> live = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            if (live.isEmpty() || random.nextInt(3) == 0) {
                RemoteSegmentMetadata m = segment(i * 100L, i * 100L + 99);
                log.add(new SegmentAdded(m));
                cache.apply(log.get(log.size() - 1));
                live.add(m);
            } else {
                RemoteSegmentMetadata m = live.get(random.nextInt(live.size()));
                RemoteSegmentState current =
                        cache.segment(m.segmentId()).orElseThrow().state();
                RemoteSegmentState next = RemoteSegmentState.values()[random.nextInt(4)];
                if (RemoteSegmentState.isLegalTransition(current, next)) {
                    RemoteLogMetadataEvent e = new SegmentStateChanged(m.segmentId(), next, i);
                    cache.apply(e);
                    log.add(e);
                    if (next == DELETE_SEGMENT_FINISHED) {
                        live.remove(m);
                    }
                }
            }
        }
        RemoteLogMetadataCache replayed = new RemoteLogMetadataCache();
        log.forEach(replayed::apply);
        assertThat(replayed.segments(PARTITION)).isEqualTo(cache.segments(PARTITION));
        assertThat(replayed.segmentsToCleanUp()).isEqualTo(cache.segmentsToCleanUp());
    }

    @Test
    void metadataRejectsLeaderEpochsOutsideTheSegment() {
        RemoteSegmentId id = RemoteSegmentId.generate(PARTITION);
        assertThatThrownBy(() -> RemoteSegmentMetadata.copyStarted(id, 10, 20, 0, epochs(0, 5), 1, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RemoteSegmentMetadata.copyStarted(id, 10, 20, 0, epochs(0, 10, 1, 25), 1, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RemoteSegmentMetadata.copyStarted(id, 10, 20, 0, epochs(), 1, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RemoteSegmentMetadata.copyStarted(id, 20, 10, 0, epochs(0, 20), 1, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
