package io.varve.broker.replica;

import io.varve.storage.PartitionLog;
import java.nio.ByteBuffer;
import org.apache.kafka.common.errors.KafkaStorageException;

/**
 * The follower's writes to its log: appending the leader's batches as they are and truncating a divergent suffix.
 * One place, so the replica layer calls the storage engine's follower API through a single seam.
 */
final class FollowerWrites {
    private FollowerWrites() {}

    static void append(PartitionLog log, ByteBuffer records) {
        throw unsupported();
    }

    static void truncateTo(PartitionLog log, long offset) {
        throw unsupported();
    }

    static void truncateFullyAndStartAt(PartitionLog log, long offset) {
        throw unsupported();
    }

    private static KafkaStorageException unsupported() {
        return new KafkaStorageException("this build's storage engine has no follower append yet");
    }
}
