package io.varve.storage.cleaner;

import java.util.ArrayList;
import java.util.List;

/**
 * Groups consecutive segments into the ones a pass writes (Kafka's grouping): each group becomes one
 * cleaned segment, so small segments merge. A group's input bytes stay within segment.bytes (its output
 * is at most about as large) and its offsets within int32 of its first base offset (the indexes store
 * offsets relative to it). A single segment always forms a group, however large.
 */
final class SegmentGroups {

    /** One input segment as grouping sees it. */
    record Input(long baseOffset, long endOffset, long sizeBytes) {}

    private SegmentGroups() {}

    /** The inputs split into groups of consecutive indices, in order; every group holds at least one input. */
    static List<List<Integer>> bySize(List<Input> inputs, long maxBytes) {
        List<List<Integer>> groups = new ArrayList<>();
        int i = 0;
        while (i < inputs.size()) {
            List<Integer> group = new ArrayList<>();
            long groupBase = inputs.get(i).baseOffset();
            long bytes = inputs.get(i).sizeBytes();
            group.add(i++);
            while (i < inputs.size()
                    && bytes + inputs.get(i).sizeBytes() <= maxBytes
                    && inputs.get(i).endOffset() - 1 - groupBase <= Integer.MAX_VALUE) {
                bytes += inputs.get(i).sizeBytes();
                group.add(i++);
            }
            groups.add(group);
        }
        return groups;
    }
}
