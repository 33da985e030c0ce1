package io.varve.broker.raft;

import java.util.List;

/** Finds the one topic and the one partition a Raft message must carry. */
final class Partitions {
    private Partitions() {}

    /** The single element of {@code items}, or an {@link InvalidRaftMessageException} naming {@code what}. */
    static <T> T only(List<T> items, String what) {
        if (items.size() != 1) {
            throw new InvalidRaftMessageException("expected one " + what + ", got " + items.size());
        }
        return items.get(0);
    }

    /** The single element, or null when there is none (a response that failed as a whole). */
    static <T> T onlyOrNull(List<T> items, String what) {
        return items.isEmpty() ? null : only(items, what);
    }

    static void checkTopic(String name) {
        if (!RaftApis.METADATA_TOPIC.equals(name)) {
            throw new InvalidRaftMessageException("topic " + name + " is not " + RaftApis.METADATA_TOPIC);
        }
    }

    static void checkPartition(int index) {
        if (index != RaftApis.METADATA_PARTITION) {
            throw new InvalidRaftMessageException(
                    "partition " + index + " of " + RaftApis.METADATA_TOPIC + " does not exist");
        }
    }
}
