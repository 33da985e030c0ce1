package io.varve.broker.share;

import io.varve.coordinator.share.SharePartition;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Where share-partition state outlives the broker. */
public interface ShareStateStore {
    /** The last state written for {@code key}, or null when there is none. */
    SharePartition.Snapshot read(SharePartitionKey key);

    /** Records {@code state} as {@code key}'s current state; null deletes it (the group or its offsets went away). */
    void write(SharePartitionKey key, SharePartition.Snapshot state);

    /** The share-partitions of {@code groupId} that have a state here. */
    java.util.List<SharePartitionKey> keys(String groupId);

    /** This broker stopped leading {@code tp}: what it cached of it is stale from now on. */
    default void resigned(org.apache.kafka.common.TopicPartition tp) {}

    /** A store that forgets everything with the broker (tests; and what a node without the state topic has). */
    static ShareStateStore inMemory() {
        Map<SharePartitionKey, SharePartition.Snapshot> states = new ConcurrentHashMap<>();
        return new ShareStateStore() {
            @Override
            public SharePartition.Snapshot read(SharePartitionKey key) {
                return states.get(key);
            }

            @Override
            public java.util.List<SharePartitionKey> keys(String groupId) {
                return states.keySet().stream()
                        .filter(k -> k.groupId().equals(groupId))
                        .toList();
            }

            @Override
            public void write(SharePartitionKey key, SharePartition.Snapshot state) {
                if (state == null) {
                    states.remove(key);
                } else {
                    states.put(key, state);
                }
            }
        };
    }
}
