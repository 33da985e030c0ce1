package io.varve.raft.state;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Leads an epoch: tracks how far each voter's log reaches and derives the high watermark from them.
 *
 * <p>The high watermark only moves forward and, per Raft, only to an offset past
 * {@code epochStartOffset}: a leader commits entries of earlier epochs only by committing one of
 * its own.
 */
public final class LeaderState implements EpochState {

    private final int localId;
    private final int epoch;
    private final long epochStartOffset;
    private final Map<Integer, Long> voterEndOffsets = new HashMap<>();
    private long highWatermark;

    LeaderState(int localId, int epoch, Set<Integer> voters, long epochStartOffset, long highWatermark) {
        if (highWatermark > epochStartOffset) {
            throw new IllegalArgumentException(
                    "high watermark " + highWatermark + " is past the epoch start offset " + epochStartOffset);
        }
        this.localId = localId;
        this.epoch = epoch;
        this.epochStartOffset = epochStartOffset;
        this.highWatermark = highWatermark;
        for (int voter : voters) {
            voterEndOffsets.put(voter, voter == localId ? epochStartOffset : 0L);
        }
    }

    /**
     * Records that {@code voterId}'s log holds every entry below {@code endOffset} durably.
     *
     * @return true if the high watermark advanced
     */
    public boolean updateEndOffset(int voterId, long endOffset) {
        Long previous = voterEndOffsets.get(voterId);
        if (previous == null) {
            throw new IllegalArgumentException(voterId + " is not a voter");
        }
        if (endOffset < previous) {
            throw new IllegalStateException(
                    "end offset of voter " + voterId + " went back from " + previous + " to " + endOffset);
        }
        voterEndOffsets.put(voterId, endOffset);
        long majorityEndOffset = voterEndOffsets.values().stream()
                .sorted((a, b) -> Long.compare(b, a))
                .skip(voterEndOffsets.size() / 2)
                .findFirst()
                .orElseThrow();
        if (majorityEndOffset > highWatermark && majorityEndOffset > epochStartOffset) {
            highWatermark = majorityEndOffset;
            return true;
        }
        return false;
    }

    /** Every entry below this offset is committed. */
    public long highWatermark() {
        return highWatermark;
    }

    public long epochStartOffset() {
        return epochStartOffset;
    }

    @Override
    public int epoch() {
        return epoch;
    }

    @Override
    public int leaderId() {
        return localId;
    }

    @Override
    public ElectionState election() {
        return new ElectionState(epoch, localId, localId);
    }

    @Override
    public String name() {
        return "Leader";
    }
}
