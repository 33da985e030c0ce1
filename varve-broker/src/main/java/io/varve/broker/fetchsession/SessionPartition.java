package io.varve.broker.fetchsession;

import org.apache.kafka.common.Uuid;

/**
 * One partition of a fetch session: what the client last asked for (its fetch position) and what the broker last
 * answered about it (high watermark, last stable offset, log start), so that a later response can leave it out when
 * none of that changed. Mutated only under its session's monitor.
 */
public final class SessionPartition {
    /** Not answered yet, or answered with an error: the next response must carry the partition. */
    static final long UNKNOWN = -1;

    private final Key key;
    private PartitionFetch fetch;
    private long sentHighWatermark = UNKNOWN;
    private long sentLastStableOffset = UNKNOWN;
    private long sentLogStartOffset = UNKNOWN;

    /**
     * How a session names a partition: by topic id from Fetch v13, else by name (the other field is then the zero
     * id, or null).
     */
    public record Key(Uuid topicId, String topic, int partition) {
        public static Key byId(Uuid topicId, int partition) {
            return new Key(topicId, null, partition);
        }

        public static Key byName(String topic, int partition) {
            return new Key(Uuid.ZERO_UUID, topic, partition);
        }
    }

    /**
     * What a request asks of one partition.
     *
     * @param logStartOffsetOfFollower the follower's own log start (-1 from consumers)
     * @param highWatermarkOfFollower the high watermark the follower knows (Fetch v18, KIP-1166): -1 when it knows
     *     none, {@link Long#MAX_VALUE} when the request does not say (consumers, older versions)
     */
    public record PartitionFetch(
            Key key,
            long fetchOffset,
            int currentLeaderEpoch,
            int lastFetchedEpoch,
            long logStartOffsetOfFollower,
            int maxBytes,
            long highWatermarkOfFollower) {

        /** A fetch that does not say which high watermark it knows. */
        public PartitionFetch(
                Key key,
                long fetchOffset,
                int currentLeaderEpoch,
                int lastFetchedEpoch,
                long logStartOffsetOfFollower,
                int maxBytes) {
            this(
                    key,
                    fetchOffset,
                    currentLeaderEpoch,
                    lastFetchedEpoch,
                    logStartOffsetOfFollower,
                    maxBytes,
                    Long.MAX_VALUE);
        }
    }

    /**
     * What one response says of a partition.
     *
     * @param directive true when the answer tells the client to do something beyond its offsets (a diverging epoch
     *     to truncate to, a preferred read replica): always sent
     */
    public record Answer(
            Key key,
            short errorCode,
            long highWatermark,
            long lastStableOffset,
            long logStartOffset,
            int recordsBytes,
            boolean directive) {

        public Answer(
                Key key, short errorCode, long highWatermark, long lastStableOffset, long logStartOffset, int bytes) {
            this(key, errorCode, highWatermark, lastStableOffset, logStartOffset, bytes, false);
        }

        boolean isError() {
            return errorCode != 0;
        }
    }

    SessionPartition(PartitionFetch fetch) {
        this.key = fetch.key();
        this.fetch = fetch;
    }

    public Key key() {
        return key;
    }

    public PartitionFetch fetch() {
        return fetch;
    }

    void update(PartitionFetch newer) {
        this.fetch = newer;
    }

    /** Records what is sent; true when the partition must be in an incremental response. */
    boolean answered(Answer answer) {
        boolean mustSend = answer.recordsBytes() > 0
                || answer.isError()
                || answer.directive()
                || answer.highWatermark() != sentHighWatermark
                || answer.lastStableOffset() != sentLastStableOffset
                || answer.logStartOffset() != sentLogStartOffset;
        if (answer.isError()) {
            // sent again once it recovers, whatever its offsets then
            sentHighWatermark = UNKNOWN;
            sentLastStableOffset = UNKNOWN;
            sentLogStartOffset = UNKNOWN;
        } else {
            sentHighWatermark = answer.highWatermark();
            sentLastStableOffset = answer.lastStableOffset();
            sentLogStartOffset = answer.logStartOffset();
        }
        return mustSend;
    }
}
