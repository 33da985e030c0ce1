package io.varve.storage;

import java.io.IOException;

/**
 * Test seam of the log's multi-step file changes, called with a step's name before each durable step: of a
 * segment swap (flush of the new segments, the manifest write, each rename, the directory fsync, the manifest
 * deletion) and of a truncation (each segment retired, the cut of the segment holding the offset, the leader
 * epochs, the producer snapshots). A fault that throws there leaves the files as a crash at that point would; the
 * log goes offline and the next load must find a consistent log: wholly before or after a swap, and for a
 * truncation a log that ends somewhere between the truncation offset and the old end, whose epochs and producer
 * state describe exactly its batches.
 */
@FunctionalInterface
interface StepFaults {

    StepFaults NONE = step -> {};

    void before(String step) throws IOException;
}
