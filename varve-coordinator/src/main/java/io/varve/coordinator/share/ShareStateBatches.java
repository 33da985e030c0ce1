package io.varve.coordinator.share;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Combines a share-partition's stored state batches with those of a write (WriteShareGroupState): where they overlap
 * the write's win, what lies below the start offset is dropped, and neighbours in the same state at the same delivery
 * count become one batch. A share-partition leader may send only the batches that changed, or all of them; both
 * combine to the same state. Pure.
 */
public final class ShareStateBatches {
    private ShareStateBatches() {}

    /** {@code stored} overlaid with {@code written}, clipped to offsets from {@code startOffset} on, sorted. */
    public static List<SharePartition.StateBatch> merge(
            List<SharePartition.StateBatch> stored, List<SharePartition.StateBatch> written, long startOffset) {
        List<SharePartition.StateBatch> writes = new ArrayList<>(written);
        writes.sort(Comparator.comparingLong(SharePartition.StateBatch::firstOffset));
        List<SharePartition.StateBatch> pieces = new ArrayList<>();
        for (SharePartition.StateBatch old : stored) {
            subtract(old, writes, pieces);
        }
        // overlapping batches within one write: the later one in the request wins, as a later write would
        List<SharePartition.StateBatch> ownWrites = new ArrayList<>();
        for (int i = 0; i < written.size(); i++) {
            subtract(written.get(i), written.subList(i + 1, written.size()), ownWrites);
        }
        pieces.addAll(ownWrites);
        List<SharePartition.StateBatch> clipped = new ArrayList<>();
        for (SharePartition.StateBatch b : pieces) {
            if (b.lastOffset() >= startOffset && b.lastOffset() >= b.firstOffset()) {
                clipped.add(new SharePartition.StateBatch(
                        Math.max(b.firstOffset(), startOffset), b.lastOffset(), b.state(), b.deliveryCount()));
            }
        }
        clipped.sort(Comparator.comparingLong(SharePartition.StateBatch::firstOffset));
        List<SharePartition.StateBatch> out = new ArrayList<>();
        for (SharePartition.StateBatch b : clipped) {
            SharePartition.StateBatch last = out.isEmpty() ? null : out.get(out.size() - 1);
            if (last != null
                    && last.lastOffset() + 1 == b.firstOffset()
                    && last.state() == b.state()
                    && last.deliveryCount() == b.deliveryCount()) {
                out.set(
                        out.size() - 1,
                        new SharePartition.StateBatch(
                                last.firstOffset(), b.lastOffset(), last.state(), last.deliveryCount()));
            } else {
                out.add(b);
            }
        }
        return out;
    }

    /** Adds to {@code out} the parts of {@code batch} that no batch of {@code cover} overlaps. */
    private static void subtract(
            SharePartition.StateBatch batch,
            List<SharePartition.StateBatch> cover,
            List<SharePartition.StateBatch> out) {
        List<long[]> left = new ArrayList<>();
        left.add(new long[] {batch.firstOffset(), batch.lastOffset()});
        for (SharePartition.StateBatch c : cover) {
            List<long[]> next = new ArrayList<>();
            for (long[] r : left) {
                if (c.lastOffset() < r[0] || c.firstOffset() > r[1]) {
                    next.add(r);
                    continue;
                }
                if (r[0] < c.firstOffset()) {
                    next.add(new long[] {r[0], c.firstOffset() - 1});
                }
                if (r[1] > c.lastOffset()) {
                    next.add(new long[] {c.lastOffset() + 1, r[1]});
                }
            }
            left = next;
        }
        for (long[] r : left) {
            out.add(new SharePartition.StateBatch(r[0], r[1], batch.state(), batch.deliveryCount()));
        }
    }
}
