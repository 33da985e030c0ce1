package io.varve.tiered.metadata;

import java.util.TreeMap;
import org.apache.kafka.common.Uuid;

/** Test fixtures: segment metadata with readable defaults. */
public final class Segments {
    public static final TopicIdPartition PARTITION =
            new TopicIdPartition(Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ"), "orders", 3);

    private Segments() {}

    /** A new segment of {@link #PARTITION} holding {@code [start, end]} in leader epoch 0. */
    public static RemoteSegmentMetadata segment(long start, long end) {
        return segment(PARTITION, start, end, epochs(0, start));
    }

    public static RemoteSegmentMetadata segment(
            TopicIdPartition partition, long start, long end, TreeMap<Integer, Long> epochs) {
        return RemoteSegmentMetadata.copyStarted(
                RemoteSegmentId.generate(partition),
                start,
                end,
                1_700_000_000_000L + end,
                epochs,
                (int) (end - start + 1) * 100,
                1_700_000_000_000L);
    }

    /** epoch, startOffset, epoch, startOffset, ... */
    public static TreeMap<Integer, Long> epochs(long... epochAndStart) {
        TreeMap<Integer, Long> map = new TreeMap<>();
        for (int i = 0; i < epochAndStart.length; i += 2) {
            map.put((int) epochAndStart[i], epochAndStart[i + 1]);
        }
        return map;
    }
}
