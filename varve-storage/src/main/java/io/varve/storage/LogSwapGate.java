package io.varve.storage;

import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;

/**
 * How the broker keeps its writers of a partition out while a replica moved to another log dir takes over
 * ({@link ReplicaDirMover}): the swap runs inside, and the writers use the log it returns from then on. The broker
 * holds its partition's lock around the swap (its writers append under it), so no append lands between the last
 * byte copied and the switch.
 */
@FunctionalInterface
public interface LogSwapGate {

    /** Nobody outside the log manager holds the log: the swap just runs. */
    LogSwapGate NONE = (tp, swap) -> swap.get();

    /**
     * Runs {@code swap} while nothing writes {@code tp}, and points the writers at the log it returns (the new log, or
     * the old one when the move was given up at the last moment). Lock order: the broker's locks first, then the
     * log's.
     */
    PartitionLog swap(TopicPartition tp, Supplier<PartitionLog> swap);
}
