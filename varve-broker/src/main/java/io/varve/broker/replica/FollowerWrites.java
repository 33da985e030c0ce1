package io.varve.broker.replica;

import io.varve.storage.PartitionLog;
import java.nio.ByteBuffer;

/**
 * The follower's writes to its log: appending the leader's batches as they are and truncating a divergent suffix.
 * One place, so the replica layer calls the storage engine's follower API through a single seam.
 */
final class FollowerWrites {
    private FollowerWrites() {}

    static void append(PartitionLog log, ByteBuffer records) {
        log.appendAsFollower(records);
    }

    static void truncateTo(PartitionLog log, long offset) {
        log.truncateTo(offset);
    }

    static void truncateFullyAndStartAt(PartitionLog log, long offset) {
        log.truncateFullyAndStartAt(offset);
    }
}
