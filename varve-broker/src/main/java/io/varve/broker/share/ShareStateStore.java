package io.varve.broker.share;

import io.varve.coordinator.share.SharePartition;
import io.varve.coordinator.share.ShareStateRecords;
import io.varve.coordinator.share.ShareStateShard;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;

/**
 * Where share-partition state outlives its leader: the share coordinator, which the leader calls (KIP-932's
 * persister). Each future completes with the coordinator's answer for the key, errors included (retriable ones were
 * retried until a deadline); operations on one key are applied in the order they were called.
 */
public interface ShareStateStore {
    /** What a read returns: the state epoch and the state, whose start offset is -1 when nobody initialized it. */
    record Loaded(Errors error, int stateEpoch, SharePartition.Snapshot snapshot) {
        public boolean initialized() {
            return snapshot != null && snapshot.startOffset() >= 0;
        }
    }

    /** What a summary returns: the state epoch, the start offset (-1 when none), how many offsets from it are done. */
    record Summary(Errors error, int stateEpoch, long startOffset, int deliveryCompleteCount) {}

    /** ReadShareGroupState as the leader at {@code leaderEpoch}. */
    CompletableFuture<Loaded> read(SharePartitionKey key, int leaderEpoch);

    /** WriteShareGroupState of the whole state; a later write of the same key that is not sent yet replaces it. */
    CompletableFuture<Errors> write(SharePartitionKey key, int stateEpoch, int leaderEpoch, SharePartition.Snapshot s);

    /** InitializeShareGroupState: the state starts afresh at {@code startOffset} with {@code stateEpoch}. */
    CompletableFuture<Errors> initialize(SharePartitionKey key, int stateEpoch, long startOffset);

    /** DeleteShareGroupState (the group or its offsets went away). */
    CompletableFuture<Errors> delete(SharePartitionKey key);

    /** DeleteShareGroupState of many keys (a group deleted); keys without a state are no-ops at their coordinator. */
    default CompletableFuture<Void> deleteAll(List<SharePartitionKey> keys) {
        return CompletableFuture.allOf(keys.stream().map(this::delete).toArray(CompletableFuture[]::new));
    }

    /** ReadShareGroupStateSummary (describing offsets without loading the state). */
    CompletableFuture<Summary> summary(SharePartitionKey key, int leaderEpoch);

    /** The share-partitions of {@code groupId} that have a state in the coordinators this broker runs. */
    List<SharePartitionKey> keys(String groupId);

    /** A store that forgets everything with the broker (tests), with a coordinator's epoch checks. */
    static ShareStateStore inMemory() {
        ShareStateShard shard = new ShareStateShard();
        return new ShareStateStore() {
            private ShareStateRecords.Key k(SharePartitionKey key) {
                return new ShareStateRecords.Key(key.groupId(), key.topicId(), key.partition());
            }

            @Override
            public synchronized CompletableFuture<Loaded> read(SharePartitionKey key, int leaderEpoch) {
                ShareStateShard.Outcome o = shard.read(k(key), leaderEpoch);
                return CompletableFuture.completedFuture(
                        o.ok()
                                ? new Loaded(
                                        Errors.NONE,
                                        o.state().stateEpoch(),
                                        o.state().snapshot())
                                : new Loaded(o.error(), -1, null));
            }

            @Override
            public synchronized CompletableFuture<Errors> write(
                    SharePartitionKey key, int stateEpoch, int leaderEpoch, SharePartition.Snapshot s) {
                return CompletableFuture.completedFuture(
                        shard.write(k(key), stateEpoch, leaderEpoch, s.startOffset(), s.batches())
                                .error());
            }

            @Override
            public synchronized CompletableFuture<Errors> initialize(
                    SharePartitionKey key, int stateEpoch, long startOffset) {
                return CompletableFuture.completedFuture(
                        shard.initialize(k(key), stateEpoch, startOffset).error());
            }

            @Override
            public synchronized CompletableFuture<Errors> delete(SharePartitionKey key) {
                return CompletableFuture.completedFuture(shard.delete(k(key)).error());
            }

            @Override
            public synchronized CompletableFuture<Summary> summary(SharePartitionKey key, int leaderEpoch) {
                ShareStateShard.Outcome o = shard.summary(k(key), leaderEpoch);
                return CompletableFuture.completedFuture(
                        o.ok()
                                ? new Summary(
                                        Errors.NONE,
                                        o.state().stateEpoch(),
                                        o.state().snapshot().startOffset(),
                                        ShareStateShard.deliveryCompleteCount(
                                                o.state().snapshot()))
                                : new Summary(o.error(), -1, -1, 0));
            }

            @Override
            public synchronized List<SharePartitionKey> keys(String groupId) {
                return shard.keysOf(groupId).stream()
                        .map(x -> new SharePartitionKey(x.groupId(), x.topicId(), x.partition()))
                        .toList();
            }
        };
    }
}
